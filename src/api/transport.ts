import { once } from 'node:events';
import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import type { SecureContext } from 'node:tls';
import { ApiError } from '../core/errors.js';
import { causeCode } from './errors.js';
import { AnswerHeaders, type ApiResponse, type Send, type StreamedBody } from './exchange.js';
import type { Network } from './network.js';
import { ProxyFailure, type ProxyRoute } from './proxy.js';

// An ES module import of node:http reads all its exports, and one of them starts Node's fetch (undici),
// the very cost this transport avoids: both modules are taken as CommonJS.
const { request: httpRequest } = process.getBuiltinModule('node:http');
const { request: httpsRequest, Agent: HttpsAgent } = process.getBuiltinModule('node:https');

/** The most of an answer svc reads: far above any JSON answer of the API, far below what could exhaust memory. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * A request as the transport sends it: svc's client's, the kit's (bytes of an upload) or a webhook
 * delivery's (a header repeated as it was received).
 */
export interface OutgoingRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body?: string | Uint8Array | StreamedBody | undefined;
}

/** `what`: the answer as sent, or as decoded. */
function tooLarge(request: OutgoingRequest, what: 'an answer of' | 'a compressed answer that decodes to'): ApiError {
  const url = new URL(request.url);
  return new ApiError({
    kind: 'server',
    code: 'answer_too_large',
    message: `${url.origin} sent ${what} more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB, to ${request.method} ${url.pathname}`,
    hint: 'check that --base-url points at the API itself',
    method: request.method,
    url: request.url,
  });
}

const DECODERS = { gzip: 'gunzip', 'x-gzip': 'gunzip', deflate: 'inflate', br: 'brotliDecompress' } as const;

/** The encodings svc asks for and decodes (Accept-Encoding). */
const ACCEPTED_ENCODINGS = 'gzip, deflate, br';

/** An answer's body as its Content-Encoding says, decoded within the bound: a compression bomb stops there. */
async function decode(request: OutgoingRequest, encoding: string | undefined, body: Buffer): Promise<Buffer> {
  const name = encoding?.trim().toLowerCase() ?? 'identity';
  if (name === 'identity' || name === '' || body.length === 0) return body;
  const decoder = Object.hasOwn(DECODERS, name) ? DECODERS[name as keyof typeof DECODERS] : undefined;
  const undecodable = (why: string) =>
    new ApiError({
      kind: 'server',
      code: 'answer_undecodable',
      message: `${new URL(request.url).origin} answered ${request.method} ${new URL(request.url).pathname} with a body svc cannot decode (${why})`,
      hint: `svc asks for ${ACCEPTED_ENCODINGS}; check what the server or a gateway in front of it sends`,
      method: request.method,
      url: request.url,
    });
  if (!decoder) throw undecodable(`Content-Encoding ${name.slice(0, 40)}`);
  const zlib = process.getBuiltinModule('node:zlib');
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      const inflate = zlib[decoder] as (input: Buffer, options: { maxOutputLength: number }, done: (error: Error | null, result: Buffer) => void) => void;
      inflate(body, { maxOutputLength: MAX_ANSWER_BYTES }, (error, result) => (error ? reject(error) : resolve(result)));
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(request, 'a compressed answer that decodes to');
    throw undecodable(`${name}: ${(error as Error).message}`);
  }
}

function readAnswer(request: OutgoingRequest, answer: IncomingMessage): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    answer.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        answer.destroy(tooLarge(request, 'an answer of'));
        return;
      }
      chunks.push(chunk);
    });
    answer.once('error', reject);
    answer.once('end', () => {
      const status = answer.statusCode ?? 0;
      decode(request, answer.headers['content-encoding'], Buffer.concat(chunks)).then(
        (body) =>
          resolve({
            status,
            statusText: answer.statusMessage ?? '',
            ok: status >= 200 && status < 300,
            url: request.url,
            headers: new AnswerHeaders(answer.headers),
            text: new TextDecoder().decode(body),
          }),
        reject,
      );
    });
  });
}

/**
 * Writes the body, waiting for the connection to take each chunk. A failure to write is the
 * request's own error event, which settles the exchange (an answer that came first stands).
 */
async function sendBody(outgoing: ClientRequest, body: OutgoingRequest['body']): Promise<void> {
  if (body === undefined || typeof body === 'string' || body instanceof Uint8Array) {
    outgoing.end(body);
    return;
  }
  for await (const chunk of body.chunks()) {
    if (outgoing.destroyed) return;
    if (!outgoing.write(chunk)) await once(outgoing, 'drain').catch(() => undefined);
  }
  outgoing.end();
}

/** Failures of the connection itself: with a proxy, that connection is the proxy's. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ERR_PROXY_TUNNEL']);

/** The agent of a request through `route`: Node's own proxy support, a CONNECT tunnel; none (a connection of its own) without one. */
function agentFor(route: ProxyRoute | undefined): Agent | false {
  return route ? new HttpsAgent({ proxyEnv: { HTTPS_PROXY: route.url.href } }) : false;
}

/** Verification failures that more roots may cure: an issuer the first context did not know. */
const UNKNOWN_ISSUER = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
]);

/**
 * One exchange over Node's http or https module, on a connection of its own (none is reused, so none
 * can be one the server is closing), through the network's proxy for that URL, read whole up to
 * 64 MiB (decoded). An HTTPS server whose issuer the first roots do not know is connected to again
 * trusting every root (see Trust): its handshake failed, so nothing of the request was sent. The
 * signal bounds all of it, connecting to the last byte of the answer; aborted, it rejects with the
 * signal's reason (a TimeoutError for a timeout), as fetch does. svc's client, the kit and webhook
 * deliveries all go through it.
 */
export async function exchange(request: OutgoingRequest, signal: AbortSignal, network: Network): Promise<ApiResponse> {
  const { trust } = network;
  if (!request.url.startsWith('https:')) return exchangeOnce(request, signal, network, undefined);
  try {
    return await exchangeOnce(request, signal, network, trust.first);
  } catch (error) {
    const wider = UNKNOWN_ISSUER.has(causeCode(error) ?? '') ? trust.wider : undefined;
    if (!wider) throw error;
    return exchangeOnce(request, signal, network, wider);
  }
}

function exchangeOnce(request: OutgoingRequest, signal: AbortSignal, network: Network, context: SecureContext | undefined): Promise<ApiResponse> {
  const url = new URL(request.url);
  const headers: Record<string, string | readonly string[] | number> = {
    'user-agent': network.userAgent,
    'accept-encoding': ACCEPTED_ENCODINGS,
    ...request.headers,
  };
  const { body } = request;
  if (typeof body === 'string') headers['content-length'] = Buffer.byteLength(body);
  else if (body instanceof Uint8Array) headers['content-length'] = body.byteLength;
  else if (body !== undefined) {
    headers['content-type'] ??= body.contentType;
    headers['content-length'] = body.length;
  }
  const route = network.proxies.routeFor(url);
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const https = url.protocol === 'https:';
    const outgoing = (https ? httpsRequest : httpRequest)(url, {
      method: request.method,
      headers: headers as Record<string, string | string[] | number>,
      agent: agentFor(route),
      ...(context && { secureContext: context, rejectUnauthorized: network.trust.rejectUnauthorized }),
    });
    const abort = () => outgoing.destroy(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    const settle =
      <T>(then: (value: T) => void) =>
      (value: T) => {
        signal.removeEventListener('abort', abort);
        then(value);
      };
    let answered = false;
    outgoing.once(
      'error',
      settle((error: NodeJS.ErrnoException) =>
        reject(route && !answered && CONNECTION_CODES.has(error.code ?? '') ? new ProxyFailure(route, url, error) : error),
      ),
    );
    outgoing.once('response', (answer) => {
      answered = true;
      void readAnswer(request, answer).then(settle(resolve), settle(reject));
    });
    // What fails here is the body's source (a file that cannot be read): the request cannot be completed.
    sendBody(outgoing, body).catch((error: unknown) => outgoing.destroy(error as Error));
  });
}

/** svc's transport: one exchange per attempt, each bounded by the timeout. */
export function createTransport(options: { network: Network; timeoutMs: number }): Send {
  return (request) => exchange(request, AbortSignal.timeout(options.timeoutMs), options.network);
}
