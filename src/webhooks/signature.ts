import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Seconds a signature's timestamp may be off, either way (openapi.yaml, x-webhook-signature). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A webhook secret, or the same as a KeyObject, which a receiver makes once rather than on every delivery. */
export type SigningKey = string | KeyObject;

/**
 * The signature of spec part 6 as openapi.yaml's x-webhook-signature records it:
 * HMAC-SHA256 with the webhook secret over `<t>.<raw body>`, hex-encoded, sent as `t=<t>,v1=<hex>`.
 */
export function computeSignature(secret: SigningKey, timestamp: number, body: Uint8Array | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** `t=<t>,v1=<hex>`, with one v1 per secret when given several (as during a secret rotation). */
export function signatureHeader(secret: string | readonly string[], body: Uint8Array | string, timestamp = Math.floor(Date.now() / 1000)): string {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  return [`t=${timestamp}`, ...secrets.map((item) => `v1=${computeSignature(item, timestamp, body)}`)].join(',');
}

export type SignatureFailure = 'missing_header' | 'malformed_header' | 'no_v1' | 'timestamp_too_old' | 'timestamp_in_future' | 'signature_mismatch';

export type SignatureCheck = { ok: true; timestamp: number; secretIndex: number } | { ok: false; reason: SignatureFailure; detail: string; timestamp?: number };

export interface ParsedSignature {
  timestamp: number;
  signatures: string[];
}

/** Reads `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`; other schemes (v0, …) are ignored, as is their order. */
export function parseSignatureHeader(value: string): ParsedSignature | { reason: 'malformed_header' | 'no_v1'; detail: string } {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of value.split(',')) {
    const separator = part.indexOf('=');
    if (separator <= 0) return { reason: 'malformed_header', detail: `"${part.trim()}" is not of the form key=value` };
    const key = part.slice(0, separator).trim();
    const item = part.slice(separator + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(item)) return { reason: 'malformed_header', detail: `t=${item} is not a unix timestamp in seconds` };
      if (timestamp !== undefined) return { reason: 'malformed_header', detail: 'the header carries t= twice' };
      timestamp = Number(item);
    } else if (key === 'v1') {
      signatures.push(item);
    }
  }
  if (timestamp === undefined) return { reason: 'malformed_header', detail: 'the header has no t= timestamp' };
  if (signatures.length === 0) return { reason: 'no_v1', detail: 'the header has no v1= signature' };
  return { timestamp, signatures };
}

/** Part 6 names the header `Service-Signature`, and `X-Service-Signature` as an alternative (lower case, as Node gives them). */
export const SIGNATURE_HEADERS = ['service-signature', 'x-service-signature'] as const;

/** The signature header of a delivery under either name, `Service-Signature` first. */
export function signatureHeaderOf(headers: IncomingHttpHeaders): { name: (typeof SIGNATURE_HEADERS)[number]; value: string } | undefined {
  for (const name of SIGNATURE_HEADERS) {
    const value = headers[name];
    // Node joins a repeated header with ", ", so its t= parts then show up twice (malformed).
    if (value !== undefined) return { name, value: Array.isArray(value) ? value.join(', ') : value };
  }
  return undefined;
}

/** Compares a hex signature with an expected one in time independent of where they differ. */
export function sameHex(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given.toLowerCase(), 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks a delivery's signature over the raw bytes of its body, in constant time: any of several
 * secrets (rotation) against any of several v1 values, with the timestamp inside the tolerance.
 */
export function verifySignature(
  header: string | undefined,
  body: Uint8Array | string,
  options: { secrets: readonly SigningKey[]; toleranceSeconds?: number; now?: number },
): SignatureCheck {
  if (header === undefined || header.trim() === '')
    return { ok: false, reason: 'missing_header', detail: 'no Service-Signature (or X-Service-Signature) header' };
  const parsed = parseSignatureHeader(header);
  if ('reason' in parsed) return { ok: false, ...parsed };
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const skew = now - parsed.timestamp;
  if (skew > tolerance) {
    return { ok: false, reason: 'timestamp_too_old', detail: `signed ${skew} s ago, more than the ${tolerance} s tolerance`, timestamp: parsed.timestamp };
  }
  if (-skew > tolerance) {
    return {
      ok: false,
      reason: 'timestamp_in_future',
      detail: `signed ${-skew} s in the future, more than the ${tolerance} s tolerance`,
      timestamp: parsed.timestamp,
    };
  }
  for (const [secretIndex, secret] of options.secrets.entries()) {
    const expected = computeSignature(secret, parsed.timestamp, body);
    if (parsed.signatures.some((given) => sameHex(expected, given))) return { ok: true, timestamp: parsed.timestamp, secretIndex };
  }
  return {
    ok: false,
    reason: 'signature_mismatch',
    detail: `no v1 value matches the body signed with ${options.secrets.length === 1 ? 'the secret' : `any of ${options.secrets.length} secrets`}`,
    timestamp: parsed.timestamp,
  };
}
