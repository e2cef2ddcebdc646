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

describe('svc webhooks verify: the diagnosis of a captured delivery', () => {
  it('passes every step of a valid delivery and says which secret and which v1 matched', () => {
    const header = `t=${NOW},v1=${computeSignature(OTHER, NOW, COMPACT)},v1=${computeSignature(SECRET, NOW, COMPACT)}`;
    const diagnosis = diagnose({ header, body: COMPACT, secrets: [OTHER.replace('other', 'third'), SECRET] });
    expect(diagnosis).toMatchObject({ ok: true, reason: null, matched: { secret: 1, v1: 1 } });
    expect(diagnosis.steps.map((item) => [item.step, item.status])).toEqual([
      ['header', 'ok'],
      ['timestamp', 'ok'],
      ['signature', 'ok'],
      ['body', 'ok'],
      ['envelope', 'ok'],
      ['schema', 'ok'],
    ]);
    expect(diagnosis.schemaNotes).toEqual([]);
    expect(step(diagnosis, 'signature').detail).toBe('v1 value #2 of 2 matches secret #2 of 2 (whsec_…mnop)');
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

  it('recognises a v1 encoded in base64 instead of hex', () => {
    const base64 = Buffer.from(computeSignature(SECRET, NOW, COMPACT), 'hex').toString('base64');
    const diagnosis = diagnose({ header: `t=${NOW},v1=${base64}`, body: COMPACT });
    expect(step(diagnosis, 'header').hint).toMatch(/not 64 hex digits/);
    expect(step(diagnosis, 'signature').hint).toMatch(/base64-encoded signature; .* lower-case hex/);
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
