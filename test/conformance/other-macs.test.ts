/**
 * An HMAC keyed with the webhook secret under another hash than SHA-256 is the implementation's
 * wrong signature, not a forger's noise: only a holder of the secret can make one. Known answers
 * computed once with openssl:
 *
 *   printf '%s' '1700000000.{"id":"evt_1"}' | openssl dgst -sha1 -hmac "$SECRET" -hex      (and -binary | base64)
 *   printf '%s' '{"id":"evt_1"}' | openssl dgst -sha512 -hmac "$SECRET" -hex
 *   printf '%s' '1700000000.{"id":"evt_1"}' | openssl dgst -sha1 -hmac "$OTHER" -hex
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { OtherMacs } from '../../src/webhooks/other-macs.js';
import { WebhookReceiver } from '../../src/conformance/receiver.js';

const SECRET = 'whsec_knownanswer6123456789abcdefghijklm';
const T = 1_700_000_000;
const BODY = Buffer.from('{"id":"evt_1"}');
const SHA1 = { hex: 'aab07f2958c37e8fdfb1890e27063542df566d4f', base64: 'qrB/KVjDfo/fsYkOJwY1Qt9WbU8=' };
const SHA512_BODY_ONLY = '8cccdbb5a76c751fe89716c43b020631b2e999e642f02aa0f25fc4c79d619af03f029968ae207771833df3d3df0c1429152ec6628defa3c15597250369862bb9';
/** HMAC-SHA1 keyed with another secret: what a forger without the secret can make. */
const SHA1_OTHER_SECRET = 'cb2e16ccde4e06a554815fe9001dea44ca448a8c';
/** HMAC-SHA256 over `<t>.<body>` (test/webhooks/signature.test.ts). */
const SHA256 = 'ae36c9a6cf0ed43b67e4c0ff17f48b41832eb9e971f98eb2a9da355387d64592';

describe('OtherMacs', () => {
  const macs = new OtherMacs(SECRET, T, BODY);

  it('names the hash, the signed string and the encoding of an HMAC keyed with the secret', () => {
    expect(macs.of(SHA1.hex)).toEqual({ hash: 'sha1', signedPayload: 'timestamped', encoding: 'hex' });
    expect(macs.of(SHA1.hex.toUpperCase())).toEqual({ hash: 'sha1', signedPayload: 'timestamped', encoding: 'hex' });
    expect(macs.of(SHA1.base64)).toEqual({ hash: 'sha1', signedPayload: 'timestamped', encoding: 'base64' });
    expect(macs.of(SHA512_BODY_ONLY)).toEqual({ hash: 'sha512', signedPayload: 'body', encoding: 'hex' });
  });

  it('names nothing for another secret, a right HMAC-SHA256, a cut digest, another timestamp or no value', () => {
    expect(macs.of(SHA1_OTHER_SECRET)).toBeUndefined();
    expect(macs.of(SHA256)).toBeUndefined();
    expect(macs.of(SHA1.hex.slice(0, 38))).toBeUndefined();
    expect(new OtherMacs(SECRET, T + 1, BODY).of(SHA1.hex)).toBeUndefined();
    expect(macs.of('')).toBeUndefined();
  });
});

describe("the kit's receiver, given the secret", () => {
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.close();
  });

  function deliver(port: number, v1: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const outgoing = request(
        { host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'service-signature': `t=${T},v1=${v1}` } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(BODY);
    });
  }

  it('keeps an HMAC-SHA1 made with the secret as evidence of a wrong signature, and one made with another secret as noise', async () => {
    const receiver = new WebhookReceiver({ secret: SECRET });
    receivers.push(receiver);
    const port = await receiver.start(0, '127.0.0.1');
    expect(await deliver(port, SHA1_OTHER_SECRET)).toBe(400);
    expect(await deliver(port, SHA1.hex)).toBe(200);
    expect(receiver.deliveries.map((delivery) => delivery.signatures)).toEqual([
      [{ header: 'Service-Signature', position: 1, kind: 'other_mac', mac: { hash: 'sha1', signedPayload: 'timestamped', encoding: 'hex' } }],
    ]);
    expect(Object.fromEntries(receiver.noise)).toEqual({ signature_mismatch: 1 });
  });
});
