import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer as createNetServer } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The body's bytes as received, for binary uploads. */
  raw: Buffer;
  at: number;
}

export type Handler = (request: RecordedRequest, response: ServerResponse, index: number) => void;

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A real HTTP(S) server on 127.0.0.1 that records every request and answers through `handler`. */
export async function startServer(handler: Handler, tls?: { key: string; cert: string }): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const listener = (incoming: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const raw = Buffer.concat(chunks);
      const request = {
        method: incoming.method ?? '',
        path: incoming.url ?? '',
        headers: incoming.headers,
        body: raw.toString('utf8'),
        raw,
        at: performance.now(),
      };
      requests.push(request);
      handler(request, response, requests.length - 1);
    });
  };
  const server = tls ? createHttpsServer(tls, listener) : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', 'x-ratelimit-remaining': '42', ...headers });
  response.end(JSON.stringify(body));
}

export function apiError(response: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  json(response, status, { error: { code, message } }, headers);
}

/** The first port of the kernel's ephemeral range (Linux): what it gives to port 0 and to outgoing connections. */
function ephemeralStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

const FIRST_PORT = 20_000;
/** Test files run in several processes at once (vitest's pool): each picks ports from a slice of its own. */
const SLICES = 16;
const handedOut = new Set<number>();
/** Where this process starts its walk through its slice: another checkout's suite on the machine walks the same slices from elsewhere. */
const startOffset = randomInt(1 << 16);

function listens(port: number): Promise<boolean> {
  const server = createNetServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port of 127.0.0.1 free at the moment, for a process that must be told its port before it
 * listens. It is below the kernel's ephemeral range, so that between now and then no socket of the
 * suite bound to port 0, and none of its many outgoing connections, can be given it (one was: the
 * kit then could not listen, EADDRINUSE); no two callers of the suite are given the same.
 */
export async function freePort(): Promise<number> {
  const size = Math.floor((ephemeralStart() - FIRST_PORT) / SLICES);
  if (size < 64)
    throw new Error(`the kernel's ephemeral ports start at ${ephemeralStart()}: the tests need ports ${FIRST_PORT}-${FIRST_PORT + SLICES * 64} outside them`);
  const slice = FIRST_PORT + (Number(process.env.VITEST_POOL_ID ?? 0) % SLICES) * size;
  for (let tried = 0; tried < size; tried++) {
    const port = slice + ((startOffset + handedOut.size + tried) % size);
    if (handedOut.has(port)) continue;
    // Taken before it is tried, so that calls made together never hand out one port twice.
    handedOut.add(port);
    if (await listens(port)) return port;
  }
  throw new Error(`no free port of 127.0.0.1 in ${slice}-${slice + size - 1}`);
}
