/**
 * The signature in every form the specification allows (part 6: HMAC with SHA-256; the signed
 * string and the encoding of v1 are not shown), against known answers computed once with openssl:
 *
 *   printf '%s' '1700000000.{"id":"evt_1"}' | openssl dgst -sha256 -hmac "$SECRET" -hex
 *   printf '%s' '1700000000.{"id":"evt_1"}' | openssl dgst -sha256 -hmac "$SECRET" -binary | base64
 *   printf '%s' '{"id":"evt_1"}' | openssl dgst -sha256 -hmac "$SECRET" -binary | base64
 *   printf '%s' '1700000000.{"id":"evt_1"}' | openssl dgst -sha1 -hmac "$SECRET" -hex
 */
import { describe, expect, it } from 'vitest';
import { computeSignature, signatureHeader, verifySignature } from '../../src/webhooks/signature.js';

const SECRET = 'whsec_knownanswer6123456789abcdefghijklm';
const OTHER = 'whsec_knownanswer7123456789abcdefghijklm';
const T = 1_700_000_000;
const BODY = '{"id":"evt_1"}';

/** HMAC-SHA256 over `<t>.<body>`. */
const TIMESTAMPED = {
  hex: 'ae36c9a6cf0ed43b67e4c0ff17f48b41832eb9e971f98eb2a9da355387d64592',
  base64: 'rjbJps8O1Dtn5MD/F/SLQYMuuelx+Y6yqdo1U4fWRZI=',
};
/** HMAC-SHA256 over the body alone. */
const BODY_ONLY = {
  hex: '26c288e06cd749cc0c16b734ae1756777c4680b19f4c408b0ab6bc27ae1719fb',
  base64: 'JsKI4GzXScwMFrc0rhdWd3xGgLGfTECLCra8J64XGfs=',
};
/** HMAC-SHA1 over `<t>.<body>`: not the algorithm part 6 states. */
const SHA1 = { hex: 'aab07f2958c37e8fdfb1890e27063542df566d4f', base64: 'qrB/KVjDfo/fsYkOJwY1Qt9WbU8=' };

const verify = (v1: string, options: Partial<Parameters<typeof verifySignature>[2]> = {}) =>
  verifySignature(`t=${T},v1=${v1}`, BODY, { secrets: [SECRET], now: T, ...options });

// [form, v1 over `<t>.<body>`, its encoding]
const ACCEPTED: Array<[string, string, 'hex' | 'base64']> = [
  ['lower-case hex', TIMESTAMPED.hex, 'hex'],
  ['upper-case hex', TIMESTAMPED.hex.toUpperCase(), 'hex'],
  ['standard base64, padded', TIMESTAMPED.base64, 'base64'],
  ['standard base64, unpadded', 'rjbJps8O1Dtn5MD/F/SLQYMuuelx+Y6yqdo1U4fWRZI', 'base64'],
  ['URL-safe base64, unpadded', 'rjbJps8O1Dtn5MD_F_SLQYMuuelx-Y6yqdo1U4fWRZI', 'base64'],
  ['URL-safe base64, padded', 'rjbJps8O1Dtn5MD_F_SLQYMuuelx-Y6yqdo1U4fWRZI=', 'base64'],
];

describe('verifySignature: v1 in any encoding of HMAC-SHA256 over <t>.<raw body>', () => {
  it.each(ACCEPTED)('accepts %s and says which encoding it is', (_form, v1, encoding) => {
    expect(verify(v1)).toEqual({ ok: true, timestamp: T, secretIndex: 0, encoding, signedPayload: 'timestamped' });
  });

  it.each(ACCEPTED)('refuses %s with another secret', (_form, v1) => {
    expect(verify(v1, { secrets: [OTHER] })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('takes only the encoding it is pinned to', () => {
    expect(verify(TIMESTAMPED.base64, { encodings: ['hex'] })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(verify(TIMESTAMPED.hex, { encodings: ['base64'] })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(verify(TIMESTAMPED.base64, { encodings: ['base64'] })).toMatchObject({ ok: true, encoding: 'base64' });
    expect(verify(TIMESTAMPED.hex, { encodings: ['hex'] })).toMatchObject({ ok: true, encoding: 'hex' });
  });

  it('refuses what is not 32 bytes of HMAC-SHA256 in one alphabet: HMAC-SHA1, a cut digest, mixed alphabets, a character too many, hex read as text', () => {
    for (const v1 of [
      SHA1.hex,
      SHA1.base64,
      TIMESTAMPED.hex.slice(0, 63),
      TIMESTAMPED.base64.slice(0, 42),
      `${TIMESTAMPED.base64}=`,
      'rjbJps8O1Dtn5MD/F_SLQYMuuelx+Y6yqdo1U4fWRZI',
      `${TIMESTAMPED.base64.slice(0, -1)}x`,
      `${TIMESTAMPED.hex}00`,
      Buffer.from(TIMESTAMPED.hex).toString('base64'),
    ]) {
      expect(verify(v1), v1).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    }
  });

  it('refuses the signature of the body alone unless told to take it, and then says so', () => {
    for (const v1 of [BODY_ONLY.hex, BODY_ONLY.base64]) expect(verify(v1)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(verify(BODY_ONLY.base64, { signedPayloads: ['body'] })).toMatchObject({ ok: true, encoding: 'base64', signedPayload: 'body' });
    expect(verify(BODY_ONLY.hex, { signedPayloads: ['timestamped', 'body'] })).toMatchObject({ ok: true, encoding: 'hex', signedPayload: 'body' });
    // Told the body alone, it refuses the signature of <t>.<body>.
    expect(verify(TIMESTAMPED.hex, { signedPayloads: ['body'] })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('keeps the timestamp tolerance in every encoding', () => {
    for (const v1 of [TIMESTAMPED.hex, TIMESTAMPED.base64]) {
      expect(verify(v1, { now: T + 301 })).toMatchObject({ ok: false, reason: 'timestamp_too_old' });
      expect(verify(v1, { now: T - 301 })).toMatchObject({ ok: false, reason: 'timestamp_in_future' });
    }
  });

  it('says what it takes when nothing matches', () => {
    expect(verify(SHA1.hex)).toMatchObject({
      detail: 'no v1 value matches the body signed with the secret (HMAC-SHA256 over <t>.<raw body>, in hex or base64)',
    });
    expect(verify(SHA1.hex, { encodings: ['base64'], signedPayloads: ['timestamped', 'body'] })).toMatchObject({
      detail: 'no v1 value matches the body signed with the secret (HMAC-SHA256 over <t>.<raw body> or the raw body alone, in base64)',
    });
  });
});

describe('computeSignature and signatureHeader', () => {
  it('sign in hex over <t>.<raw body> by default, and in base64 or over the body alone when asked', () => {
    expect(computeSignature(SECRET, T, BODY)).toBe(TIMESTAMPED.hex);
    expect(computeSignature(SECRET, T, BODY, { encoding: 'base64' })).toBe(TIMESTAMPED.base64);
    expect(computeSignature(SECRET, T, BODY, { signedPayload: 'body' })).toBe(BODY_ONLY.hex);
    expect(computeSignature(SECRET, T, BODY, { encoding: 'base64', signedPayload: 'body' })).toBe(BODY_ONLY.base64);
    expect(signatureHeader([SECRET, OTHER], BODY, T, { encoding: 'base64' })).toMatch(
      new RegExp(`^t=${T},v1=${TIMESTAMPED.base64.replace(/[+/]/g, '\\$&')},v1=[A-Za-z0-9+/]{43}=$`),
    );
  });
});
