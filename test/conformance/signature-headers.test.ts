/**
 * Every signature an implementation sends is judged (issue 35, B.5): each of the two header names
 * part 6 gives, and each v1 in a header, sent over a socket to the kit's real receiver and judged
 * by `events.signature-valid` as a run judges it.
 */
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckFailure, SetupError } from '../../src/conformance/outcome.js';
import { signatureFormFindings } from '../../src/conformance/probes/events.js';
import { judgeSignatures } from '../../src/conformance/probes/signatures.js';
import { WebhookReceiver } from '../../src/conformance/receiver.js';

const SECRET = 'whsec_signatureheaders0123456789abcdefghij';
const OTHER_SECRET = 'whsec_anotherwebhooksecret0123456789abcdef';
const T = 1_700_000_000;
const BODY = '{"id":"evt_1","type":"report.created","data":{"id":"rep_1"}}';

const mac = (hash: string, secret: string, text: string, encoding: 'hex' | 'base64' = 'hex') => createHmac(hash, secret).update(text).digest(encoding);
/** HMAC-SHA256 with the secret over `<t>.<body>`: part 6's signature. */
const right = (t = T, encoding: 'hex' | 'base64' = 'hex') => mac('sha256', SECRET, `${t}.${BODY}`, encoding);
/** HMAC-SHA1 with the secret: only a holder of the secret makes it. */
const sha1 = (t = T) => mac('sha1', SECRET, `${t}.${BODY}`);
/** HMAC-SHA256 with a secret the kit does not hold. */
const otherSecret = (t = T) => mac('sha256', OTHER_SECRET, `${t}.${BODY}`);

const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});

async function receiver(encodings?: Array<'hex' | 'base64'>): Promise<{ receiver: WebhookReceiver; port: number }> {
  const started = new WebhookReceiver({ secret: SECRET, encodings });
  receivers.push(started);
  return { receiver: started, port: await started.start(0, '127.0.0.1') };
}

/** One delivery of BODY with `headers`; the status the receiver answered. */
function deliver(port: number, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'service-event': 'report.created', ...headers } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(BODY);
  });
}

/** What `events.signature-valid` makes of the deliveries: its note when it passes, else the error it throws. */
function judged(target: WebhookReceiver): string | CheckFailure | SetupError {
  try {
    return judgeSignatures(target.deliveries);
  } catch (error) {
    if (error instanceof CheckFailure || error instanceof SetupError) return error;
    throw error;
  }
}

/** The judgement of one delivery carrying `headers`, which the receiver must keep. */
async function judgedOne(headers: Record<string, string>): Promise<string | CheckFailure | SetupError> {
  const { receiver: target, port } = await receiver();
  expect(await deliver(port, headers)).toBe(200);
  expect(target.deliveries).toHaveLength(1);
  return judged(target);
}

function expectNoSecretNorValue(message: string, values: string[]): void {
  expect(message).not.toContain(SECRET);
  expect(message).not.toContain(OTHER_SECRET);
  for (const value of values) expect(message).not.toContain(value);
}

describe('events.signature-valid judges every signature header', () => {
  it('fails Service-Signature right beside X-Service-Signature in HMAC-SHA1, naming the header and the position', async () => {
    const verdict = await judgedOne({ 'service-signature': `t=${T},v1=${right()}`, 'x-service-signature': `t=${T},v1=${sha1()}` });
    expect(verdict).toBeInstanceOf(CheckFailure);
    const message = (verdict as CheckFailure).message;
    expect(message).toContain(
      'got 1 delivery whose X-Service-Signature v1 #1 is HMAC-SHA-1 with the webhook secret over <t>.<raw body>, in hex (only a holder of the secret can make it)',
    );
    expectNoSecretNorValue(message, [right(), sha1()]);
  });

  it('fails X-Service-Signature right beside Service-Signature in HMAC-SHA1', async () => {
    const verdict = await judgedOne({ 'service-signature': `t=${T},v1=${sha1()}`, 'x-service-signature': `t=${T},v1=${right()}` });
    expect((verdict as CheckFailure).message).toContain('whose Service-Signature v1 #1 is HMAC-SHA-1');
  });

  it("fails a header none of whose v1 values is the secret's, beside one that verifies: a receiver reading it refuses the delivery", async () => {
    const verdict = await judgedOne({ 'service-signature': `t=${T},v1=${right()}`, 'x-service-signature': `t=${T},v1=${otherSecret()}` });
    expect(verdict).toBeInstanceOf(CheckFailure);
    const message = (verdict as CheckFailure).message;
    expect(message).toContain('got 1 delivery whose X-Service-Signature carries no v1 of the secret (v1 #1 is no HMAC-SHA256 of the webhook secret');
    expect(message).toContain('a receiver that reads that header refuses such a delivery');
    expectNoSecretNorValue(message, [right(), otherSecret()]);
  });

  it('keeps, and fails, a delivery whose Service-Signature is made with another secret and X-Service-Signature right', async () => {
    const verdict = await judgedOne({ 'service-signature': `t=${T},v1=${otherSecret()}`, 'x-service-signature': `t=${T},v1=${right()}` });
    expect((verdict as CheckFailure).message).toContain('whose Service-Signature carries no v1 of the secret (v1 #1 is no HMAC-SHA256');
  });

  it('passes both headers right, each judged with its own t=, and says both carry the signature', async () => {
    const verdict = await judgedOne({ 'service-signature': `t=${T},v1=${right()}`, 'x-service-signature': `t=${T + 1},v1=${right(T + 1, 'base64')}` });
    expect(verdict).toBe(
      '1 delivery signed with HMAC-SHA256 over <t>.<raw body>, in hex and HMAC-SHA256 over <t>.<raw body>, in base64, in Service-Signature and X-Service-Signature',
    );
  });

  it("reads X-Service-Signature's v1 against its own t=, not Service-Signature's", async () => {
    const verdict = await judgedOne({ 'service-signature': `t=${T},v1=${right()}`, 'x-service-signature': `t=${T + 1},v1=${sha1(T + 1)}` });
    expect((verdict as CheckFailure).message).toContain('whose X-Service-Signature v1 #1 is HMAC-SHA-1');
  });
});

describe('events.signature-valid judges every v1 of a header', () => {
  it('fails a header with two v1 values, one right and one HMAC-SHA1, naming its position', async () => {
    const verdict = await judgedOne({ 'service-signature': `t=${T},v1=${right()},v1=${sha1()}` });
    expect(verdict).toBeInstanceOf(CheckFailure);
    expect((verdict as CheckFailure).message).toContain('got 1 delivery whose Service-Signature v1 #2 is HMAC-SHA-1 with the webhook secret');
  });

  it('passes a header with two v1 values that both verify with the secret', async () => {
    const verdict = await judgedOne({ 'service-signature': `t=${T},v1=${right()},v1=${right(T, 'base64')}` });
    expect(verdict).toBe('1 delivery signed with HMAC-SHA256 over <t>.<raw body>, in hex and HMAC-SHA256 over <t>.<raw body>, in base64');
  });

  it('is inconclusive on a v1 made with a secret the kit does not hold beside one that verifies (a rotation, or wrong), naming where', async () => {
    const verdict = await judgedOne({ 'x-service-signature': `t=${T},v1=${otherSecret()},v1=${right()}` });
    expect(verdict).toBeInstanceOf(SetupError);
    const message = (verdict as SetupError).message;
    expect(message).toContain('1 delivery whose X-Service-Signature v1 #1 is no HMAC-SHA256 of the webhook secret');
    expect(message).toContain('as while the webhook secret is rotated');
    expectNoSecretNorValue(message, [right(), otherSecret()]);
  });

  it('fails on an HMAC-SHA1 even beside a v1 it cannot attribute', async () => {
    const verdict = await judgedOne({ 'service-signature': `t=${T},v1=${right()},v1=${otherSecret()},v1=${sha1()}` });
    expect((verdict as CheckFailure).message).toContain('whose Service-Signature v1 #3 is HMAC-SHA-1');
  });

  it('passes one right v1 in one header, as before', async () => {
    expect(await judgedOne({ 'service-signature': `t=${T},v1=${right()}` })).toBe('1 delivery signed with HMAC-SHA256 over <t>.<raw body>, in hex');
  });
});

describe('events.signature-form judges every signature header', () => {
  it('finds X-Service-Signature not of the form t=…,v1=… beside a Service-Signature that is, and nothing in two that are', async () => {
    const { receiver: target, port } = await receiver();
    expect(await deliver(port, { 'service-signature': `t=${T},v1=${right()}`, 'x-service-signature': `sha256=${right()}` })).toBe(200);
    expect(await deliver(port, { 'service-signature': `t=${T},v1=${right()}`, 'x-service-signature': `t=${T},v1=${right()}` })).toBe(200);
    const [malformed, wellFormed] = target.deliveries;
    expect(signatureFormFindings(malformed!)).toEqual([
      {
        expected: 'X-Service-Signature: t=<unix_timestamp>,v1=<signature>',
        got: `sha256=${right()} (the header has no t= timestamp)`,
        request: expect.stringContaining('delivery #1'),
      },
    ]);
    expect(signatureFormFindings(wellFormed!)).toEqual([]);
    // A header that cannot be read is the form check's: the valid one decides nothing more of it.
    expect(judgeSignatures([malformed!])).toBe('1 delivery signed with HMAC-SHA256 over <t>.<raw body>, in hex');
  });
});

describe('a signature header without t=', () => {
  /** HMAC-SHA256 with the secret over the body alone, which needs no timestamp. */
  const overBody = (hash = 'sha256', encoding: 'hex' | 'base64' = 'hex') => mac(hash, SECRET, BODY, encoding);

  it("keeps a delivery whose v1 is the secret's over the body: signature-valid passes it, signature-form fails naming the missing t=", async () => {
    const { receiver: target, port } = await receiver();
    expect(await deliver(port, { 'service-signature': `v1=${overBody()}` })).toBe(200);
    expect(await deliver(port, { 'x-service-signature': `v1=${overBody('sha256', 'base64')}` })).toBe(200);
    expect(target.noiseCount).toBe(0);
    expect(signatureFormFindings(target.deliveries[0]!)).toEqual([
      {
        expected: 'Service-Signature: t=<unix_timestamp>,v1=<signature>',
        got: `v1=${overBody()} (the header has no t= timestamp)`,
        request: expect.stringContaining('delivery #1'),
      },
    ]);
    expect(signatureFormFindings(target.deliveries[1]!)[0]?.got).toContain('the header has no t= timestamp');
    expect(judged(target)).toBe(
      '1 delivery signed with HMAC-SHA256 over the raw body alone, in hex; 1 delivery signed with HMAC-SHA256 over the raw body alone, in base64; ' +
        'a signature of the body alone does not bind the timestamp, so replay protection rests on dropping duplicate event ids',
    );
  });

  it('keeps, and fails on, an HMAC-SHA1 of the secret over the body without t=', async () => {
    const verdict = await judgedOne({ 'service-signature': `v1=${overBody('sha1')}` });
    expect(verdict).toBeInstanceOf(CheckFailure);
    expect((verdict as CheckFailure).findings[0]?.got).toContain(
      'Service-Signature v1 #1 is HMAC-SHA-1 with the webhook secret over the raw body alone, in hex',
    );
  });

  it('sets aside as noise one whose v1 verifies with the secret over no body alone (it names no timestamp to check it against)', async () => {
    const { receiver: target, port } = await receiver();
    expect(await deliver(port, { 'service-signature': `v1=${right()}` })).toBe(400);
    expect(await deliver(port, { 'service-signature': `v1=${mac('sha256', OTHER_SECRET, BODY)}` })).toBe(400);
    expect(target.deliveries).toEqual([]);
    expect(Object.fromEntries(target.noise)).toEqual({ malformed_header: 2 });
  });
});

describe('with --signature-encoding', () => {
  it('is inconclusive, not failed, on a v1 of the secret in the encoding the pin leaves out, beside one in the pinned encoding', async () => {
    const { receiver: target, port } = await receiver(['hex']);
    expect(await deliver(port, { 'service-signature': `t=${T},v1=${right()}`, 'x-service-signature': `t=${T},v1=${right(T, 'base64')}` })).toBe(200);
    const verdict = (() => {
      try {
        return judgeSignatures(target.deliveries, ['hex']);
      } catch (error) {
        return error;
      }
    })();
    expect(verdict).toBeInstanceOf(SetupError);
    expect((verdict as SetupError).message).toContain(
      'X-Service-Signature v1 #1 is HMAC-SHA256 with the webhook secret in base64, which --signature-encoding hex leaves out',
    );
    expect((verdict as SetupError).message).toContain('or without --signature-encoding');
  });
});

describe("the kit's receiver, given the secret", () => {
  it('sets aside as noise a delivery no v1 of either header authenticates', async () => {
    const { receiver: target, port } = await receiver();
    expect(await deliver(port, { 'service-signature': `t=${T},v1=${otherSecret()}`, 'x-service-signature': `t=${T},v1=${otherSecret()}` })).toBe(400);
    expect(await deliver(port, { 'service-signature': 'garbage', 'x-service-signature': `t=${T},v1=${otherSecret()}` })).toBe(400);
    expect(await deliver(port, {})).toBe(400);
    expect(target.deliveries).toEqual([]);
    expect(Object.fromEntries(target.noise)).toEqual({ signature_mismatch: 1, malformed_header: 1, missing_header: 1 });
  });
});
