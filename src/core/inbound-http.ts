import type { IncomingMessage } from 'node:http';

/**
 * Limits for a server that strangers can reach (the webhook listener, the kit's receiver): a slow
 * client is cut off, not waited for, and no header section is unbounded.
 */
export const INBOUND_SERVER_OPTIONS = {
  maxHeaderSize: 16 * 1024,
  /** A whole request must arrive within this. */
  requestTimeout: 10_000,
  headersTimeout: 5_000,
  // Node checks the two timeouts above only this often (30 s by default).
  connectionsCheckingInterval: 1_000,
};

export const MAX_INBOUND_HEADERS = 100;

/** The largest body taken by default: far above any event part 6 describes. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export class BodyTooLarge extends Error {}

/** Reads a body up to `limit` bytes, refusing a larger one as soon as it shows, without reading it whole. */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length']);
    if (declared > limit) return reject(new BodyTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.pause();
        reject(new BodyTooLarge());
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    request.on('error', reject);
    request.on('close', () => {
      if (!request.complete) reject(new Error('the client went away before the body was complete'));
    });
  });
}
