import type { IncomingHttpHeaders } from 'node:http';
import { isLoopbackHost } from '../api/base-url.js';
import { SvcError } from '../core/errors.js';
import { DEFAULT_TOLERANCE_SECONDS, parseSignatureHeader, SIGNATURE_HEADERS, signatureHeader, signatureHeaderOf } from './signature.js';

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

/**
 * The headers a stored event is replayed with: those it arrived with, its signature made afresh
 * with `secrets` when there are any; else the original one, then `staleSignature` when it is older
 * than the tolerance an application that checks timestamps applies.
 */
export function replayHeaders(
  event: { headers: IncomingHttpHeaders; body: Uint8Array },
  secrets: readonly string[],
): { headers: Record<string, string | string[]>; staleSignature: boolean } {
  const headers = forwardedHeaders(event.headers);
  if (secrets.length > 0) {
    for (const name of SIGNATURE_HEADERS) delete headers[name];
    headers['service-signature'] = signatureHeader(secrets, event.body);
    return { headers, staleSignature: false };
  }
  const original = signatureHeaderOf(event.headers);
  const parsed = original && parseSignatureHeader(original.value);
  return { headers, staleSignature: Boolean(parsed && 'timestamp' in parsed && Date.now() / 1000 - parsed.timestamp > DEFAULT_TOLERANCE_SECONDS) };
}
