import type { IncomingMessage, ServerResponse } from 'node:http';
import schemas from '../api/schemas.json' with { type: 'json' };

/** An answer other than success, thrown by a handler and rendered with the error body of openapi.yaml. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const MAX_JSON_BYTES = 1024 * 1024;

export function sendJson(response: ServerResponse, status: number, body: string, headers: Record<string, string | number>): void {
  response.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/** `text` if it has at most `max` characters (code points, as JSON Schema counts them); else its start and `…`, `max` in all. */
export function clipped(text: string, max: number): string {
  if (text.length <= max) return text;
  // `max` characters span at most 2 * max UTF-16 code units.
  const start = Array.from(text.slice(0, 2 * max));
  if (start.length <= max && text.length <= 2 * max) return text;
  return `${start.slice(0, max - 1).join('')}…`;
}

/** The error body of openapi.yaml, within its bounds: a message or param echoing a long input is clipped. */
export function errorBody(error: HttpError): string {
  const { message, param } = schemas.ErrorDetail.properties;
  return JSON.stringify({
    error: { code: error.code, message: clipped(error.message, message.maxLength), ...(error.param ? { param: clipped(error.param, param.maxLength) } : {}) },
  });
}

/** Reads a JSON object body of at most 1 MiB: 400 `invalid_json` when it does not parse, 413 past the limit. */
export async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) {
    throw new HttpError(415, 'unsupported_media_type', 'send the body as application/json (part 4)');
  }
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > MAX_JSON_BYTES) throw new HttpError(413, 'payload_too_large', 'the JSON body exceeds 1 MiB');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_JSON_BYTES) throw new HttpError(413, 'payload_too_large', 'the JSON body exceeds 1 MiB');
    chunks.push(chunk as Buffer);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new HttpError(400, 'invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(422, 'invalid_request', 'the body must be a JSON object');
  }
  return body as Record<string, unknown>;
}
