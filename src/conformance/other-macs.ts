import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseSignatureHeader, type SignatureEncoding, SIGNED_PAYLOADS, type SignedPayload } from '../webhooks/signature.js';

/** Hashes an implementation may wrongly key HMAC with in place of part 6's SHA-256. */
const OTHER_HASHES = ['sha1', 'sha224', 'sha384', 'sha512', 'md5'] as const;
type OtherHash = (typeof OTHER_HASHES)[number];

export interface OtherMac {
  hash: OtherHash;
  signedPayload: SignedPayload;
  encoding: SignatureEncoding;
}

/** The bytes a v1 value holds in hex (any case) or base64 (either alphabet, padded or not); undefined for anything else. */
function decoded(value: string): Array<{ bytes: Buffer; encoding: SignatureEncoding }> {
  const out: Array<{ bytes: Buffer; encoding: SignatureEncoding }> = [];
  if (/^(?:[0-9a-fA-F]{2})+$/.test(value)) out.push({ bytes: Buffer.from(value, 'hex'), encoding: 'hex' });
  if (/^(?:[A-Za-z0-9+/]+|[A-Za-z0-9_-]+)={0,2}$/.test(value)) out.push({ bytes: Buffer.from(value, 'base64'), encoding: 'base64' });
  return out;
}

/**
 * Which HMAC other than HMAC-SHA256 keyed with `secret` a delivery's v1 is, over either signed
 * string level spec takes; undefined when none. Only a holder of the secret can make such a value,
 * so a delivery carrying one is the implementation's (or a sender it gave the secret), signed
 * with the wrong hash: evidence against it, which no third party without the secret can forge.
 */
export function otherMac(header: string | undefined, raw: Buffer, secret: string): OtherMac | undefined {
  if (header === undefined) return undefined;
  const parsed = parseSignatureHeader(header);
  if ('reason' in parsed) return undefined;
  const given = parsed.signatures.flatMap(decoded);
  for (const hash of OTHER_HASHES) {
    for (const signedPayload of SIGNED_PAYLOADS) {
      const hmac = createHmac(hash, secret);
      if (signedPayload === 'timestamped') hmac.update(`${parsed.timestamp}.`);
      const expected = hmac.update(raw).digest();
      const match = given.find((item) => item.bytes.length === expected.length && timingSafeEqual(item.bytes, expected));
      if (match) return { hash, signedPayload, encoding: match.encoding };
    }
  }
  return undefined;
}

export function describeOtherMac(mac: OtherMac): string {
  return `HMAC-${mac.hash.toUpperCase().replace(/^SHA/, 'SHA-')} with the webhook secret over ${mac.signedPayload === 'timestamped' ? '<t>.<raw body>' : 'the raw body alone'}, in ${mac.encoding}`;
}
