import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { setDefaultCACertificates } from 'node:tls';
import { ApiError, ConfigError } from '../core/errors.js';
import { AnswerHeaders, type ApiResponse, type Send, type StreamedBody } from './exchange.js';

// An ES module import of node:http reads all its exports, and one of them starts Node's fetch (undici),
// the very cost this transport avoids: both modules are taken as CommonJS.
const { request: httpRequest } = process.getBuiltinModule('node:http');
const { request: httpsRequest } = process.getBuiltinModule('node:https');

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

/** Whom an HTTPS exchange trusts, where not the process's default CA certificates. */
export interface Trust {
  /** PEM certificates trusted instead of the defaults. */
  ca?: string[] | undefined;
  /** false: any certificate (the kit's --insecure). */
  rejectUnauthorized?: boolean | undefined;
}

/** The PEM text of a CA certificate file, or an error that says what is wrong with the file. */
export function readCaCertificate(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      'ca_cert_unreadable',
      `cannot read the CA certificate ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      'check the path given by --ca-cert (or SVC_CA_CERT, or the profile)',
    );
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError('ca_cert_invalid', `${path} holds no PEM certificate`, 'give a PEM file (-----BEGIN CERTIFICATE-----)');
  }
  return pem;
}

/**
 * Makes the CA certificate in this PEM file the one root this process trusts, as `curl --cacert`
 * does. Set process-wide, it serves svc's client, Node's fetch and every other client alike.
 */
export function trustOnly(caCertPath: string): void {
  setDefaultCACertificates([readCaCertificate(caCertPath)]);
}

function readAnswer(request: OutgoingRequest, answer: IncomingMessage): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    answer.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        const origin = new URL(request.url).origin;
        answer.destroy(
          new ApiError({
            kind: 'server',
            code: 'answer_too_large',
            message: `${origin} sent an answer to ${request.method} ${new URL(request.url).pathname} of more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`,
            hint: 'check that --base-url points at the API itself',
            method: request.method,
            url: request.url,
          }),
        );
        return;
      }
      chunks.push(chunk);
    });
    answer.once('error', reject);
    answer.once('end', () => {
      const status = answer.statusCode ?? 0;
      resolve({
        status,
        statusText: answer.statusMessage ?? '',
        ok: status >= 200 && status < 300,
        url: request.url,
        headers: new AnswerHeaders(answer.headers),
        text: new TextDecoder().decode(Buffer.concat(chunks)),
      });
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

/**
 * One exchange over Node's http or https module, on a connection of its own (none is reused, so none
 * can be one the server is closing), read whole up to 64 MiB. The signal bounds all of it, connecting
 * to the last byte of the answer; aborted, it rejects with the signal's reason (a TimeoutError for a
 * timeout), as fetch does. svc's client, the kit and webhook deliveries all go through it.
 */
export function exchange(request: OutgoingRequest, signal: AbortSignal, trust: Trust = {}): Promise<ApiResponse> {
  const url = new URL(request.url);
  const headers: Record<string, string | readonly string[] | number> = { ...request.headers };
  const { body } = request;
  if (typeof body === 'string') headers['content-length'] = Buffer.byteLength(body);
  else if (body instanceof Uint8Array) headers['content-length'] = body.byteLength;
  else if (body !== undefined) {
    headers['content-type'] ??= body.contentType;
    headers['content-length'] = body.length;
  }
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing = send(url, { method: request.method, headers: headers as Record<string, string | string[] | number>, agent: false, ...trust });
    const abort = () => outgoing.destroy(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    const settle =
      <T>(then: (value: T) => void) =>
      (value: T) => {
        signal.removeEventListener('abort', abort);
        then(value);
      };
    outgoing.once('error', settle(reject));
    outgoing.once('response', (answer) => void readAnswer(request, answer).then(settle(resolve), settle(reject)));
    // What fails here is the body's source (a file that cannot be read): the request cannot be completed.
    sendBody(outgoing, body).catch((error: unknown) => outgoing.destroy(error as Error));
  });
}

/** svc's transport: one exchange per attempt, each bounded by the timeout, trusting the operator's CA when one is given. */
export function createTransport(options: { caCertPath?: string | undefined; timeoutMs: number }): Send {
  if (options.caCertPath) trustOnly(options.caCertPath);
  return (request) => exchange(request, AbortSignal.timeout(options.timeoutMs));
}
