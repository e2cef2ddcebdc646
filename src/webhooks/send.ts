import { causeCode, isUntrustedCertificate } from '../api/errors.js';
import type { Network } from '../api/network.js';
import { ProxyFailure } from '../api/proxy.js';
import { exchange } from '../api/transport.js';
import { signatureHeader, type SigningScheme } from './signature.js';

/** Part 6: the subscriber has 10 s to answer. */
export const ANSWER_TIMEOUT_MS = 10_000;

/** What one delivery attempt got: the answer's status, or why there was none. */
export interface AttemptResult {
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** Whether an attempt was accepted: part 6 counts any 2xx answer. */
export function isDelivered(result: Pick<AttemptResult, 'status'>): boolean {
  return result.status !== null && result.status >= 200 && result.status < 300;
}

/** The headers of a delivery as part 6 describes it, with the given signature header value (or none). */
export function deliveryHeaders(type: string, signature: string | undefined): Record<string, string> {
  return {
    'content-type': 'application/json',
    'service-event': type,
    ...(signature !== undefined && { 'service-signature': signature }),
  };
}

/**
 * POSTs a body with the given headers (svc's User-Agent added when they have none) through the
 * network's proxy, and reports the answer's status within part 6's 10 s deadline, or why there was none.
 */
export async function postRaw(url: string, headers: Record<string, string | string[]>, body: Uint8Array, network: Network): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const answer = await exchange({ method: 'POST', url, headers, body }, AbortSignal.timeout(ANSWER_TIMEOUT_MS), network);
    return { status: answer.status, error: null, durationMs: elapsed() };
  } catch (error) {
    const failure = error as Error;
    const code = causeCode(error);
    const reason =
      failure.name === 'TimeoutError'
        ? `no answer within ${ANSWER_TIMEOUT_MS / 1000} s`
        : failure instanceof ProxyFailure
          ? `${failure.message} (${failure.status ?? code})`
          : isUntrustedCertificate(code)
            ? `its TLS certificate is not trusted (${code}): give its CA certificate with --ca-cert`
            : (code ?? failure.message);
    return { status: null, error: reason, durationMs: elapsed() };
  }
}

/** Sends one event as part 6 delivers it: its body, signed now with `secrets`, with its type in Service-Event. */
export function sendEvent(
  url: string,
  type: string,
  body: string,
  secrets: string | readonly string[],
  network: Network,
  scheme: SigningScheme = {},
): Promise<AttemptResult> {
  return postRaw(url, deliveryHeaders(type, signatureHeader(secrets, body, undefined, scheme)), Buffer.from(body), network);
}
