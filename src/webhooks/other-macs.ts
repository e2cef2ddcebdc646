import { createHmac, timingSafeEqual } from 'node:crypto';
import { type SignatureEncoding, SIGNED_PAYLOADS, type SignedPayload } from './signature.js';

/** Hashes an implementation may wrongly key HMAC with in place of part 6's SHA-256. */
const OTHER_HASHES = ['sha1', 'sha224', 'sha384', 'sha512', 'md5'] as const;
type OtherHash = (typeof OTHER_HASHES)[number];

export interface OtherMac {
  hash: OtherHash;
  signedPayload: SignedPayload;
  encoding: SignatureEncoding;
}

/** One HMAC keyed with the webhook secret under another hash, over one signed string of a header's timestamp. */
interface OtherDigest {
  hash: OtherHash;
  signedPayload: SignedPayload;
  digest: Buffer;
}

/** The bytes a v1 value holds in hex (any case) or base64 (either alphabet, padded or not); undefined for anything else. */
function decoded(value: string): Array<{ bytes: Buffer; encoding: SignatureEncoding }> {
  const out: Array<{ bytes: Buffer; encoding: SignatureEncoding }> = [];
  if (/^(?:[0-9a-fA-F]{2})+$/.test(value)) out.push({ bytes: Buffer.from(value, 'hex'), encoding: 'hex' });
  if (/^(?:[A-Za-z0-9+/]+|[A-Za-z0-9_-]+)={0,2}$/.test(value)) out.push({ bytes: Buffer.from(value, 'base64'), encoding: 'base64' });
  return out;
}

/**
 * Tells which HMAC other than HMAC-SHA256 keyed with `secret` a v1 value of a header timestamped
 * `timestamp` is, over either signed string level spec takes. Only a holder of the secret can make
 * such a value, so a delivery carrying one is the implementation's (or a sender it gave the secret),
 * signed with the wrong hash: evidence against it, which no third party without the secret can forge.
 * The digests are made on first use and once for all the header's values.
 */
export class OtherMacs {
  private digests: OtherDigest[] | undefined;

  /** Without a timestamp (a header with no `t=`), only the body alone is a signed string. */
  constructor(
    private readonly secret: string,
    private readonly timestamp: number | undefined,
    private readonly raw: Buffer,
  ) {}

  /** The other HMAC `value` is; undefined when none. */
  of(value: string): OtherMac | undefined {
    const given = decoded(value);
    if (given.length === 0) return undefined;
    for (const { hash, signedPayload, digest } of this.all()) {
      const match = given.find((item) => item.bytes.length === digest.length && timingSafeEqual(item.bytes, digest));
      if (match) return { hash, signedPayload, encoding: match.encoding };
    }
    return undefined;
  }

  private all(): OtherDigest[] {
    const payloads = this.timestamp === undefined ? (['body'] as const) : SIGNED_PAYLOADS;
    this.digests ??= OTHER_HASHES.flatMap((hash) =>
      payloads.map((signedPayload) => {
        const hmac = createHmac(hash, this.secret);
        if (signedPayload === 'timestamped') hmac.update(`${this.timestamp}.`);
        return { hash, signedPayload, digest: hmac.update(this.raw).digest() };
      }),
    );
    return this.digests;
  }
}

export function describeOtherMac(mac: OtherMac): string {
  return `HMAC-${mac.hash.toUpperCase().replace(/^SHA/, 'SHA-')} with the webhook secret over ${mac.signedPayload === 'timestamped' ? '<t>.<raw body>' : 'the raw body alone'}, in ${mac.encoding}`;
}
