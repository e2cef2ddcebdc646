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
 */
export function readSignatures(headers: IncomingHttpHeaders, raw: Buffer, secret: string): SignatureReading[] {
  const readings: SignatureReading[] = [];
  for (const { name, value } of signatureHeadersOf(headers)) {
    if (value.trim() === '') continue;
    const header = SIGNATURE_HEADER_NAMES[name];
    const parsed = parseSignatureHeader(value);
    if ('reason' in parsed) {
      readings.push({ header, kind: 'unreadable', reason: parsed.reason });
      continue;
    }
    const expected = SIGNED_PAYLOADS.map((signedPayload) => ({ signedPayload, digest: signatureDigest(secret, parsed.timestamp, raw, signedPayload) }));
    const others = new OtherMacs(secret, parsed.timestamp, raw);
    parsed.signatures.forEach((signature, index) => {
      const place = { header, position: index + 1 };
      const given = decodeV1(signature);
      const match = given && expected.find((item) => sameDigest(item.digest, given.digest));
      if (given && match) return void readings.push({ ...place, kind: 'valid', signedPayload: match.signedPayload, encoding: given.encoding });
      const mac = others.of(signature);
      readings.push(mac ? { ...place, kind: 'other_mac', mac } : { ...place, kind: 'unattributable' });
    });
  }
  return readings;
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
