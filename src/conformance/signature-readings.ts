import type { IncomingHttpHeaders } from 'node:http';
import {
  decodeV1,
  parseSignatureHeader,
  sameDigest,
  type SignatureEncoding,
  type SignatureFailure,
  signatureDigest,
  signatureHeadersOf,
  SIGNED_PAYLOADS,
  type SignedPayload,
} from '../webhooks/signature.js';
import { type OtherMac, OtherMacs } from '../webhooks/other-macs.js';

/** Each signature header's name as part 6 writes it, by Node's lower-case name. */
export const SIGNATURE_HEADER_NAMES = { 'service-signature': 'Service-Signature', 'x-service-signature': 'X-Service-Signature' } as const;
type SignatureHeaderName = (typeof SIGNATURE_HEADER_NAMES)[keyof typeof SIGNATURE_HEADER_NAMES];

/** Where a v1 value is: its header, and its place among that header's v1 values (from 1). */
interface V1Place {
  header: SignatureHeaderName;
  position: number;
}

/**
 * What the kit makes of one v1 value of a delivery, with the webhook secret: HMAC-SHA256 in a form
 * level spec takes (`valid`, any encoding: `--signature-encoding` is applied by who reads it), an
 * HMAC of the secret under another hash (`other_mac`), or neither (`unattributable`: made with
 * another secret, or no MAC of the secret at all).
 */
export type V1Reading =
  | (V1Place & { kind: 'valid'; signedPayload: SignedPayload; encoding: SignatureEncoding })
  | (V1Place & { kind: 'other_mac'; mac: OtherMac })
  | (V1Place & { kind: 'unattributable' });

/** A signature header that carries something but cannot be read as `t=…,v1=…` (`events.signature-form` judges it). */
interface UnreadableHeader {
  header: SignatureHeaderName;
  kind: 'unreadable';
  reason: 'malformed_header' | 'no_v1';
}

export type SignatureReading = V1Reading | UnreadableHeader;

/**
 * Reads every v1 of every signature header of a delivery (each header with its own `t=`) against
 * the webhook secret, `Service-Signature` first. A header that is empty carries no signature and is left out.
 * A header without `t=` is not of part 6's form (`events.signature-form` fails it), but its v1 values
 * may still be made with the secret over the body alone, which needs no timestamp: those are read so,
 * for such a delivery is provably the implementation's; a header none of whose v1 values is is unreadable.
 */
export function readSignatures(headers: IncomingHttpHeaders, raw: Buffer, secret: string): SignatureReading[] {
  const readings: SignatureReading[] = [];
  for (const { name, value } of signatureHeadersOf(headers)) {
    if (value.trim() === '') continue;
    const header = SIGNATURE_HEADER_NAMES[name];
    const parsed = parseSignatureHeader(value);
    if (!('reason' in parsed)) {
      readings.push(...readV1Values(header, parsed.signatures, secret, raw, parsed.timestamp));
      continue;
    }
    const untimed = untimedV1Values(value);
    const read = untimed.length > 0 ? readV1Values(header, untimed, secret, raw, undefined) : [];
    if (read.some((reading) => reading.kind !== 'unattributable')) readings.push(...read);
    else readings.push({ header, kind: 'unreadable', reason: parsed.reason });
  }
  return readings;
}

/** The v1 values of a header that has no `t=` at all (and no part that is not key=value); none for any other. */
function untimedV1Values(value: string): string[] {
  const parts = value.split(',').map((part) => part.trim());
  if (parts.some((part) => part.indexOf('=') <= 0 || part.startsWith('t='))) return [];
  return parts.filter((part) => part.startsWith('v1=')).map((part) => part.slice(3));
}

/** What each v1 of a header is, against the signed strings its timestamp allows (the body alone only, without one). */
function readV1Values(header: SignatureHeaderName, signatures: string[], secret: string, raw: Buffer, timestamp: number | undefined): V1Reading[] {
  const payloads = timestamp === undefined ? (['body'] as const) : SIGNED_PAYLOADS;
  const expected = payloads.map((signedPayload) => ({ signedPayload, digest: signatureDigest(secret, timestamp ?? 0, raw, signedPayload) }));
  const others = new OtherMacs(secret, timestamp, raw);
  return signatures.map((signature, index) => {
    const place = { header, position: index + 1 };
    const given = decodeV1(signature);
    const match = given && expected.find((item) => sameDigest(item.digest, given.digest));
    if (given && match) return { ...place, kind: 'valid', signedPayload: match.signedPayload, encoding: given.encoding };
    const mac = others.of(signature);
    return mac ? { ...place, kind: 'other_mac', mac } : { ...place, kind: 'unattributable' };
  });
}

/** Whether the readings show the delivery is the implementation's: a v1 that verifies (in `encodings`), or an HMAC of the secret under another hash. */
export function authenticates(readings: readonly SignatureReading[], encodings: readonly SignatureEncoding[]): boolean {
  return readings.some((reading) => reading.kind === 'other_mac' || (reading.kind === 'valid' && encodings.includes(reading.encoding)));
}

/** Why a delivery that does not authenticate is noise: what `verifySignature` says of its first signature header. */
export function noiseReason(readings: readonly SignatureReading[]): SignatureFailure {
  const [first] = readings;
  if (!first) return 'missing_header';
  return first.kind === 'unreadable' ? first.reason : 'signature_mismatch';
}
