import { describe, expect, it } from 'vitest';
import { type DiagnoseInput, diagnoseDelivery } from '../../src/webhooks/diagnose.js';
import { sampleEvent } from '../../src/webhooks/samples.js';
import { computeSignature, signatureHeader } from '../../src/webhooks/signature.js';
import { verifyDelivery } from '../../src/webhooks/verify.js';

const SECRET = 'whsec_diagnose0123456789abcdefghijklmnop';
const OTHER = 'whsec_otherdiag0123456789abcdefghijklmno';
const NOW = 1_767_225_600;
const EVENT = sampleEvent('document.processed', NOW * 1000);
const COMPACT = JSON.stringify(EVENT);
const PRETTY = JSON.stringify(EVENT, null, 2);

function diagnose(input: Omit<Partial<DiagnoseInput>, 'body'> & { body: string | Buffer }) {
  return diagnoseDelivery({ header: undefined, secrets: [SECRET], now: NOW, ...input, body: Buffer.from(input.body) });
}

const step = (diagnosis: ReturnType<typeof diagnoseDelivery>, name: string) => diagnosis.steps.find((item) => item.step === name)!;

/** Known answers (openssl, as in signature.test.ts) for KNOWN_SECRET, t=1700000000 and the body {"id":"evt_1"}. */
const KNOWN_SECRET = 'whsec_knownanswer6123456789abcdefghijklm';
const KNOWN = {
  timestamped: {
    hex: 'ae36c9a6cf0ed43b67e4c0ff17f48b41832eb9e971f98eb2a9da355387d64592',
    base64: 'rjbJps8O1Dtn5MD/F/SLQYMuuelx+Y6yqdo1U4fWRZI=',
    base64url: 'rjbJps8O1Dtn5MD_F_SLQYMuuelx-Y6yqdo1U4fWRZI',
  },
  body: { hex: '26c288e06cd749cc0c16b734ae1756777c4680b19f4c408b0ab6bc27ae1719fb', base64: 'JsKI4GzXScwMFrc0rhdWd3xGgLGfTECLCra8J64XGfs=' },
  sha1: 'aab07f2958c37e8fdfb1890e27063542df566d4f',
  /** HMAC-SHA1 keyed with another secret (test/conformance/other-macs.test.ts). */
  sha1OtherSecret: 'cb2e16ccde4e06a554815fe9001dea44ca448a8c',
};

const known = (v1: string, input: Omit<Partial<DiagnoseInput>, 'body'> = {}) =>
  diagnose({ header: `t=1700000000,v1=${v1}`, body: '{"id":"evt_1"}', secrets: [KNOWN_SECRET], now: 1_700_000_000, ...input });

describe('svc webhooks verify: the diagnosis of a captured delivery', () => {
  it('passes every step of a valid delivery and says which secret and which v1 matched', () => {
    const header = `t=${NOW},v1=${computeSignature(OTHER, NOW, COMPACT)},v1=${computeSignature(SECRET, NOW, COMPACT)}`;
    const diagnosis = diagnose({ header, body: COMPACT, secrets: [OTHER.replace('other', 'third'), SECRET] });
    expect(diagnosis).toMatchObject({ ok: true, reason: null, matched: { secret: 1, v1: 1, encoding: 'hex', signed_payload: 'timestamped' } });
    expect(diagnosis.steps.map((item) => [item.step, item.status])).toEqual([
      ['header', 'ok'],
      ['timestamp', 'ok'],
      ['signature', 'ok'],
      ['body', 'ok'],
      ['envelope', 'ok'],
      ['schema', 'ok'],
    ]);
    expect(diagnosis.schemaNotes).toEqual([]);
    expect(step(diagnosis, 'signature').detail).toBe('v1 value #2 of 2 matches secret #2 of 2 (whsec_…mnop): HMAC-SHA256 over <t>.<raw body>, in hex');
  });

  it('gives the direction and size of the clock skew, and still checks the signature', () => {
    const old = diagnose({ header: signatureHeader(SECRET, COMPACT, NOW - 7_500), body: COMPACT });
    expect(old.reason).toBe('timestamp_too_old');
    expect(step(old, 'timestamp').detail).toBe('signed 2 h (7,500 s) ago, 7,200 s beyond the 300 s tolerance');
    expect(step(old, 'signature').status).toBe('ok');
    const ahead = diagnose({ header: signatureHeader(SECRET, COMPACT, NOW + 420), body: COMPACT });
    expect(ahead.reason).toBe('timestamp_in_future');
    expect(step(ahead, 'timestamp')).toMatchObject({ detail: 'signed 7 min (420 s) in the future, 120 s beyond the 300 s tolerance' });
    expect(step(ahead, 'timestamp').hint).toMatch(/clock is ahead/);
  });

  it('recognises a body that was re-serialised: equal JSON, other bytes', () => {
    const diagnosis = diagnose({ header: signatureHeader(SECRET, COMPACT, NOW), body: PRETTY });
    expect(diagnosis.reason).toBe('signature_mismatch');
    expect(step(diagnosis, 'signature').hint).toMatch(/re-serialised as compact JSON/);
    const other = diagnose({ header: signatureHeader(SECRET, PRETTY, NOW), body: COMPACT });
    expect(step(other, 'signature').hint).toMatch(/re-serialised as JSON indented by 2 spaces/);
  });

  it('recognises CRLF line endings and a final newline added by an editor', () => {
    const crlf = diagnose({ header: signatureHeader(SECRET, PRETTY, NOW), body: PRETTY.replace(/\n/g, '\r\n') });
    expect(step(crlf, 'signature').hint).toMatch(/LF line endings: the copy checked here has CRLF/);
    const newline = diagnose({ header: signatureHeader(SECRET, COMPACT, NOW), body: `${COMPACT}\n` });
    expect(step(newline, 'signature').hint).toMatch(/without its final line break/);
  });

  it('recognises white space around the secret, on either side', () => {
    const mine = diagnose({ header: signatureHeader(SECRET, COMPACT, NOW), body: COMPACT, secrets: [`${SECRET}\n`] });
    expect(step(mine, 'signature').hint).toMatch(/without the white space around it/);
    const theirs = diagnose({ header: signatureHeader(`${SECRET}\n`, COMPACT, NOW), body: COMPACT });
    expect(step(theirs, 'signature').hint).toMatch(/followed by a line break/);
  });

  it('takes v1 in base64 as in hex, and says which encoding matched', () => {
    for (const [v1, encoding] of [
      [KNOWN.timestamped.base64, 'base64'],
      [KNOWN.timestamped.base64url, 'base64'],
      [KNOWN.timestamped.hex.toUpperCase(), 'hex'],
    ] as const) {
      const diagnosis = known(v1);
      expect(diagnosis.matched, v1).toEqual({ secret: 0, v1: 0, encoding, signed_payload: 'timestamped' });
      expect(step(diagnosis, 'header').hint, v1).toBeUndefined();
      expect(step(diagnosis, 'signature'), v1).toMatchObject({
        status: 'ok',
        detail: `the v1 value matches the secret whsec_…jklm: HMAC-SHA256 over <t>.<raw body>, in ${encoding}`,
      });
    }
  });

  it('with one encoding pinned, says that the other one would have matched', () => {
    const diagnosis = known(KNOWN.timestamped.base64, { encodings: ['hex'] });
    expect(diagnosis).toMatchObject({ ok: false, reason: 'signature_mismatch', matched: null });
    expect(step(diagnosis, 'signature').hint).toBe('a v1 value is the signature, in base64, which --signature-encoding hex leaves out');
    expect(step(known(KNOWN.timestamped.hex, { encodings: ['base64'] }), 'signature').hint).toBe(
      'a v1 value is the signature, in hex, which --signature-encoding base64 leaves out',
    );
  });

  it('recognises the body signed alone, and takes it only with signedPayloads body, saying that it does not bind t', () => {
    const refused = known(KNOWN.body.base64);
    expect(refused.reason).toBe('signature_mismatch');
    expect(step(refused, 'signature').hint).toMatch(
      /^a v1 value is the signature of the body alone signed, not `<t>\.<body>` \(.*--signed-payload body takes it/,
    );
    const taken = known(KNOWN.body.base64, { signedPayloads: ['body'] });
    expect(taken.matched).toEqual({ secret: 0, v1: 0, encoding: 'base64', signed_payload: 'body' });
    expect(step(taken, 'signature').detail).toMatch(/: HMAC-SHA256 over the raw body alone, in base64; it does not bind t, so only dropping event ids/);
    expect(step(known(KNOWN.timestamped.hex, { signedPayloads: ['body'] }), 'signature').hint).toMatch(
      /^a v1 value is the signature of `<t>\.<body>` signed, not the body alone/,
    );
  });

  it('never says which encoding part 6 uses: it does not say', () => {
    for (const v1 of [KNOWN.timestamped.base64, KNOWN.body.hex, KNOWN.sha1]) {
      const said = known(v1, { encodings: ['hex'] }).steps.filter((item) => ['header', 'signature'].includes(item.step));
      for (const item of said) expect(`${item.detail} ${item.hint ?? ''}`).not.toMatch(/part 6|x-webhook-signature|lower-case/);
    }
  });

  it('says of a v1 that is no HMAC-SHA256 in either encoding, nor an HMAC of the secret under another hash, that its length is wrong', () => {
    const diagnosis = known(KNOWN.sha1OtherSecret);
    expect(step(diagnosis, 'header').hint).toBe('a v1 value is neither 64 hex digits nor 43 base64 characters (44 padded), the lengths of an HMAC-SHA256');
    expect(step(diagnosis, 'signature')).toMatchObject({ status: 'failed', hint: expect.stringMatching(/^the secret is not the one the sender uses/) });
  });

  it('names a v1 made with the secret under another hash as the contract kit does', () => {
    const named = 'the v1 value is HMAC-SHA-1 with the webhook secret over <t>.<raw body>, in hex, not HMAC-SHA256: the sender signs with another hash';
    const diagnosis = known(KNOWN.sha1);
    expect(step(diagnosis, 'header').hint).toBe(named);
    expect(step(diagnosis, 'signature')).toMatchObject({ status: 'failed', reason: 'signature_mismatch', hint: named });
    const rotating = known(`${KNOWN.sha1OtherSecret},v1=${KNOWN.sha1}`, { secrets: ['whsec_unrelated0123456789abcdefghijklmn', KNOWN_SECRET] });
    expect(step(rotating, 'signature').hint).toBe(
      'v1 value #2 is HMAC-SHA-1 with the webhook secret over <t>.<raw body>, in hex (secret #2), not HMAC-SHA256: the sender signs with another hash',
    );
  });

  it('explains headers it cannot read', () => {
    expect(step(diagnose({ header: `t=${NOW}000,v1=abc`, body: COMPACT }), 'header')).toMatchObject({
      reason: 'malformed_header',
      hint: expect.stringMatching(/milliseconds/),
    });
    expect(step(diagnose({ header: `"t=${NOW},v1=abc"`, body: COMPACT }), 'header').hint).toMatch(/quoted/);
    expect(diagnose({ header: `Service-Signature: ${signatureHeader(SECRET, COMPACT, NOW)}`, body: COMPACT }).ok).toBe(true);
    const missing = diagnose({ body: COMPACT });
    expect(missing.reason).toBe('missing_header');
    expect(step(missing, 'signature').status).toBe('skipped');
    expect(step(missing, 'envelope').status).toBe('ok');
  });

  it('notes how an authentic body differs from openapi.yaml, and fails that step only with strictSchema', () => {
    const short = JSON.stringify({ id: 'evt_short1', type: 'report.completed', data: { report_id: 'rep_1', risk_score: 40 } });
    const header = signatureHeader(SECRET, short, NOW);
    const noted = diagnose({ header, body: short, serviceEvent: 'report.completed' });
    expect(noted).toMatchObject({ ok: true, reason: null, schemaNotes: ['created_at: is required (openapi.yaml ReportCompletedEvent)'] });
    expect(step(noted, 'envelope').status).toBe('ok');
    expect(step(noted, 'schema')).toMatchObject({ status: 'noted', detail: expect.stringMatching(/^differs from openapi\.yaml in 1 way/) });
    const strict = diagnose({ header, body: short, strictSchema: true });
    expect(strict).toMatchObject({ ok: false, reason: 'envelope_invalid', schemaNotes: ['created_at: is required (openapi.yaml ReportCompletedEvent)'] });
    expect(step(strict, 'schema')).toMatchObject({ status: 'failed', reason: 'envelope_invalid' });
  });

  it('fails the envelope step for what part 6 states, and then examines no schema', () => {
    const noId = JSON.stringify({ type: 'report.completed', data: {} });
    const diagnosis = diagnose({ header: signatureHeader(SECRET, noId, NOW), body: noId });
    expect(diagnosis).toMatchObject({ ok: false, reason: 'envelope_invalid', schemaNotes: [] });
    expect(step(diagnosis, 'envelope')).toMatchObject({ status: 'failed', detail: expect.stringMatching(/^id: is required/) });
    expect(step(diagnosis, 'schema').status).toBe('skipped');
  });

  it('names the first failing step with the reason code a receiver gives', () => {
    const cases: Array<[string | undefined, string]> = [
      [undefined, COMPACT],
      ['t=1', COMPACT],
      [signatureHeader(SECRET, COMPACT, NOW - 301), COMPACT],
      [signatureHeader(OTHER, COMPACT, NOW), COMPACT],
      [signatureHeader(SECRET, 'not json', NOW), 'not json'],
      [signatureHeader(SECRET, '{"id":"evt_1"}', NOW), '{"id":"evt_1"}'],
      [signatureHeader(SECRET, COMPACT, NOW), COMPACT],
    ];
    const short = '{"id":"evt_1","type":"report.completed","data":{"report_id":"rep_1","risk_score":40}}';
    cases.push([signatureHeader(SECRET, short, NOW), short]);
    for (const strictSchema of [false, true]) {
      for (const [header, body] of cases) {
        const verdict = verifyDelivery(header === undefined ? {} : { 'service-signature': header }, Buffer.from(body), {
          secrets: [SECRET],
          now: NOW,
          strictSchema,
        });
        expect(diagnose({ header, body, strictSchema }).reason).toBe(verdict.ok ? null : verdict.reason);
      }
    }
  });
});
