import type { IncomingHttpHeaders } from 'node:http';
import { Agent, request } from 'undici';
import { isLoopbackHost } from '../api/base-url.js';
import { isUntrustedCertificate } from '../api/errors.js';
import { SvcError } from '../errors.js';

/** Part 6: the subscriber has 10 s to answer. */
export const ANSWER_TIMEOUT_MS = 10_000;

/** What one delivery attempt got: the answer's status, or why there was none. */
export interface AttemptResult {
  status: number | null;
  error: string | null;
  durationMs: number;
}

// Headers that belong to one connection (RFC 9110 §7.6.1) or that the new request recomputes.
const NOT_FORWARDED = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'expect',
]);

/** The headers of a received delivery as they are passed on: all of them but the per-connection ones. */
export function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !NOT_FORWARDED.has(name)) kept[name] = value;
  }
  return kept;
}

/**
 * Checks the URL of the application that verified events are forwarded to. They are the
 * workspace's data, so they travel as the API's requests do (spec part 5.2): over HTTPS, or in
 * plain HTTP only to a loopback host.
 */
export function checkForwardUrl(value: string, flag: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SvcError(
      'usage',
      'invalid_forward_url',
      `${flag} ${value} is not a URL`,
      'give an absolute URL such as https://app.example.com/hooks or http://127.0.0.1:3000/hooks',
    );
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return;
  if (url.protocol === 'http:') {
    throw new SvcError(
      'usage',
      'insecure_forward_url',
      `refusing ${flag} ${url.origin}: events would travel unencrypted to a host that is not this machine`,
      'use https:// (--ca-cert trusts a private CA); plain http:// is allowed only for loopback hosts (127.0.0.0/8, ::1, localhost)',
    );
  }
  throw new SvcError(
    'usage',
    'invalid_forward_url',
    `${flag} uses ${url.protocol}; events are posted over https: (or http: to a loopback host)`,
    'give an https:// URL',
  );
}

let shared: Agent | undefined;

function agent(): Agent {
  shared ??= new Agent({ connections: 32, headersTimeout: ANSWER_TIMEOUT_MS, bodyTimeout: ANSWER_TIMEOUT_MS });
  return shared;
}

/** Closes the connections kept alive for posting, so the process can exit. */
export async function closePosting(): Promise<void> {
  await shared?.close();
  shared = undefined;
}

/**
 * POSTs a body with exactly the given headers (no fetch defaults added) and reports the answer's
 * status within part 6's 10 s deadline, or why there was none.
 */
export async function postRaw(url: string, headers: Record<string, string | string[]>, body: Uint8Array): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await request(url, { method: 'POST', headers, body, dispatcher: agent(), signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    await response.body.dump();
    return { status: response.statusCode, error: null, durationMs: elapsed() };
  } catch (error) {
    const failure = error as Error & { code?: string; cause?: { code?: string } };
    const timedOut = failure.name === 'TimeoutError' || failure.code === 'UND_ERR_HEADERS_TIMEOUT' || failure.code === 'UND_ERR_BODY_TIMEOUT';
    const code = failure.code ?? failure.cause?.code;
    const reason = timedOut
      ? `no answer within ${ANSWER_TIMEOUT_MS / 1000} s`
      : isUntrustedCertificate(code)
        ? `its TLS certificate is not trusted (${code}): give its CA certificate with --ca-cert`
        : (code ?? failure.message);
    return { status: null, error: reason, durationMs: elapsed() };
  }
}
