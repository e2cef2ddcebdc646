import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Seconds a signature's timestamp may be off, either way (openapi.yaml, x-webhook-signature). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A webhook secret, or the same as a KeyObject, which a receiver makes once rather than on every delivery. */
export type SigningKey = string | KeyObject;

/** How v1 writes the HMAC's 32 bytes: hex (either case), or base64 (standard or URL-safe, padded or not). */
export const SIGNATURE_ENCODINGS = ['hex', 'base64'] as const;
export type SignatureEncoding = (typeof SIGNATURE_ENCODINGS)[number];

/**
 * What the HMAC is taken over: `<t>.<raw body>` (timestamped), or the raw body alone (body). The
 * specification shows neither; a signature of the body alone does not bind t, so a captured
 * delivery can be sent again with a fresh one.
 */
export const SIGNED_PAYLOADS = ['timestamped', 'body'] as const;
export type SignedPayload = (typeof SIGNED_PAYLOADS)[number];

/** What a receiver takes unless told otherwise: the signature that binds the timestamp. */
export const DEFAULT_SIGNED_PAYLOADS: readonly SignedPayload[] = ['timestamped'];

/** How a signature is made; by default openapi.yaml's choice (x-webhook-signature): hex over `<t>.<raw body>`. */
export interface SigningScheme {
  encoding?: SignatureEncoding;
  signedPayload?: SignedPayload;
}

const PAYLOAD_NAMES: Record<SignedPayload, string> = { timestamped: '<t>.<raw body>', body: 'the raw body alone' };

/** "HMAC-SHA256 over <t>.<raw body>, in base64", for messages. */
export function describeScheme(signedPayloads: readonly SignedPayload[], encodings: readonly SignatureEncoding[]): string {
  return `HMAC-SHA256 over ${signedPayloads.map((payload) => PAYLOAD_NAMES[payload]).join(' or ')}, in ${encodings.join(' or ')}`;
}

/** HMAC-SHA256 with the webhook secret over the signed payload: the 32 bytes that v1 encodes. */
export function signatureDigest(secret: SigningKey, timestamp: number, body: Uint8Array | string, signedPayload: SignedPayload = 'timestamped'): Buffer {
  const hmac = createHmac('sha256', secret);
  if (signedPayload === 'timestamped') hmac.update(`${timestamp}.`);
  return hmac.update(body).digest();
}

/** The v1 value of a body (padded standard base64 when asked for base64). */
export function computeSignature(secret: SigningKey, timestamp: number, body: Uint8Array | string, scheme: SigningScheme = {}): string {
  return signatureDigest(secret, timestamp, body, scheme.signedPayload).toString(scheme.encoding ?? 'hex');
}

/** `t=<t>,v1=<signature>`, with one v1 per secret when given several (as during a secret rotation). */
export function signatureHeader(
  secret: string | readonly string[],
  body: Uint8Array | string,
  timestamp = Math.floor(Date.now() / 1000),
  scheme: SigningScheme = {},
): string {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  return [`t=${timestamp}`, ...secrets.map((item) => `v1=${computeSignature(item, timestamp, body, scheme)}`)].join(',');
}

const HEX_V1 = /^[0-9a-fA-F]{64}$/;
// 32 bytes are 43 base64 characters and one "=" of padding; one alphabet or the other, not both.
const BASE64_V1 = /^(?:[A-Za-z0-9+/]{43}|[A-Za-z0-9_-]{43})=?$/;

/**
 * The 32 bytes a v1 value holds in one of `encodings`, and which one; undefined for any other
 * value. The lengths differ (64 against 43 or 44 characters), so no value reads as both.
 */
export function decodeV1(
  value: string,
  encodings: readonly SignatureEncoding[] = SIGNATURE_ENCODINGS,
): { digest: Buffer; encoding: SignatureEncoding } | undefined {
  if (encodings.includes('hex') && HEX_V1.test(value)) return { digest: Buffer.from(value, 'hex'), encoding: 'hex' };
  // Node's base64 decoder reads the URL-safe alphabet too.
  if (encodings.includes('base64') && BASE64_V1.test(value)) return { digest: Buffer.from(value, 'base64'), encoding: 'base64' };
  return undefined;
}

/** Compares two digests in time independent of where they differ. */
export function sameDigest(expected: Buffer, given: Buffer): boolean {
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export type SignatureFailure = 'missing_header' | 'malformed_header' | 'no_v1' | 'timestamp_too_old' | 'timestamp_in_future' | 'signature_mismatch';

export type SignatureCheck =
  | { ok: true; timestamp: number; secretIndex: number; encoding: SignatureEncoding; signedPayload: SignedPayload }
  | { ok: false; reason: SignatureFailure; detail: string; timestamp?: number };

export interface ParsedSignature {
  timestamp: number;
  signatures: string[];
}

/** Reads `t=<unix seconds>,v1=<signature>[,v1=<signature>…]`; other schemes (v0, …) are ignored, as is their order. */
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

export interface SignatureHeader {
  name: (typeof SIGNATURE_HEADERS)[number];
  value: string;
}

/** Every signature header of a delivery, `Service-Signature` first. */
export function signatureHeadersOf(headers: IncomingHttpHeaders): SignatureHeader[] {
  return SIGNATURE_HEADERS.flatMap((name) => {
    const value = headers[name];
    // Node joins a repeated header with ", ", so its t= parts then show up twice (malformed).
    return value === undefined ? [] : [{ name, value: Array.isArray(value) ? value.join(', ') : value }];
  });
}

/** The signature header of a delivery under either name, `Service-Signature` first. */
export function signatureHeaderOf(headers: IncomingHttpHeaders): SignatureHeader | undefined {
  return signatureHeadersOf(headers)[0];
}

/** What a receiver accepts of a signature. */
export interface SignatureOptions {
  secrets: readonly SigningKey[];
  toleranceSeconds?: number;
  now?: number;
  /** The encodings of v1 taken (default: hex and base64). */
  encodings?: readonly SignatureEncoding[];
  /** What the signature may be taken over (default: `<t>.<raw body>` only, which binds the timestamp). */
  signedPayloads?: readonly SignedPayload[];
}

/**
 * Checks a delivery's signature over the raw bytes of its body, in constant time: any of several
 * secrets (rotation) against any of several v1 values, each decoded to the digest's 32 bytes, with
 * the timestamp inside the tolerance.
 */
export function verifySignature(header: string | undefined, body: Uint8Array | string, options: SignatureOptions): SignatureCheck {
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
  const encodings = options.encodings ?? SIGNATURE_ENCODINGS;
  const signedPayloads = options.signedPayloads ?? DEFAULT_SIGNED_PAYLOADS;
  const given = parsed.signatures.flatMap((signature) => decodeV1(signature, encodings) ?? []);
  for (const [secretIndex, secret] of options.secrets.entries()) {
    for (const signedPayload of signedPayloads) {
      const expected = signatureDigest(secret, parsed.timestamp, body, signedPayload);
      const match = given.find((item) => sameDigest(expected, item.digest));
      if (match) return { ok: true, timestamp: parsed.timestamp, secretIndex, encoding: match.encoding, signedPayload };
    }
  }
  return {
    ok: false,
    reason: 'signature_mismatch',
    detail: `no v1 value matches the body signed with ${options.secrets.length === 1 ? 'the secret' : `any of ${options.secrets.length} secrets`} (${describeScheme(signedPayloads, encodings)})`,
    timestamp: parsed.timestamp,
  };
}
