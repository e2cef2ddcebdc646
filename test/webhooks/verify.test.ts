import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { findProblems } from '../../src/api/validate.js';
import { EVENT_SCHEMAS, EVENT_TYPES } from '../../src/webhooks/envelope.js';
import { sampleEvent } from '../../src/webhooks/samples.js';
import { computeSignature, signatureHeader, verifySignature } from '../../src/webhooks/signature.js';
import { type DeliveryVerdict, verifyDelivery } from '../../src/webhooks/verify.js';

const SECRET = 'whsec_verifytable0123456789abcdefghijkl';
const OTHER = 'whsec_someoneelse0123456789abcdefghijkl';
const NOW = 1_767_225_600;
const EVENT = sampleEvent('report.completed', NOW * 1000);
const BODY = Buffer.from(JSON.stringify(EVENT));

function headers(signature: string | undefined, extra: IncomingHttpHeaders = {}): IncomingHttpHeaders {
  return { 'content-type': 'application/json', 'service-event': EVENT.type, ...(signature !== undefined && { 'service-signature': signature }), ...extra };
}

function verify(incoming: IncomingHttpHeaders, body: Uint8Array = BODY, secrets = [SECRET], strictSchema = false): DeliveryVerdict {
  return verifyDelivery(incoming, body, { secrets, toleranceSeconds: 300, now: NOW, strictSchema });
}

/** A body signed now with SECRET, with its Service-Event header. */
function signed(value: unknown, serviceEvent?: string): [IncomingHttpHeaders, Buffer] {
  const body = Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
  return [{ 'service-signature': `t=${NOW},v1=${v1(SECRET, body)}`, ...(serviceEvent !== undefined && { 'service-event': serviceEvent }) }, body];
}

const v1 = (secret: string, body: Uint8Array | string = BODY, t = NOW) => computeSignature(secret, t, body);
const reencoded = Buffer.from(JSON.stringify(EVENT, null, 2));
const notUtf8 = Buffer.concat([BODY.subarray(0, 20), Buffer.from([0xff, 0xfe]), BODY.subarray(20)]);
const tampered = Buffer.from(BODY);
tampered[BODY.indexOf('27')] = '8'.charCodeAt(0);

// [case, headers, body, secrets, expected reason (undefined: accepted)]
const CASES: Array<[string, IncomingHttpHeaders, Uint8Array, string[], string | undefined]> = [
  ['valid', headers(`t=${NOW},v1=${v1(SECRET)}`), BODY, [SECRET], undefined],
  ['valid, v1 in upper-case hex', headers(`t=${NOW},v1=${v1(SECRET).toUpperCase()}`), BODY, [SECRET], undefined],
  ['valid, spaces after the commas', headers(`t=${NOW}, v1=${v1(SECRET)}`), BODY, [SECRET], undefined],
  ['valid, unknown schemes (v0) beside v1', headers(`t=${NOW},v0=abc,v1=${v1(SECRET)}`), BODY, [SECRET], undefined],
  ['body tampered by one byte', headers(`t=${NOW},v1=${v1(SECRET)}`), tampered, [SECRET], 'signature_mismatch'],
  ['wrong secret', headers(`t=${NOW},v1=${v1(OTHER)}`), BODY, [SECRET], 'signature_mismatch'],
  ['signature of another timestamp', headers(`t=${NOW},v1=${v1(SECRET, BODY, NOW - 1)}`), BODY, [SECRET], 'signature_mismatch'],
  ['truncated v1', headers(`t=${NOW},v1=${v1(SECRET).slice(0, 63)}`), BODY, [SECRET], 'signature_mismatch'],
  ['stale by 301 s', headers(`t=${NOW - 301},v1=${v1(SECRET, BODY, NOW - 301)}`), BODY, [SECRET], 'timestamp_too_old'],
  ['300 s old, at the tolerance', headers(`t=${NOW - 300},v1=${v1(SECRET, BODY, NOW - 300)}`), BODY, [SECRET], undefined],
  ['301 s in the future', headers(`t=${NOW + 301},v1=${v1(SECRET, BODY, NOW + 301)}`), BODY, [SECRET], 'timestamp_in_future'],
  ['300 s in the future, at the tolerance', headers(`t=${NOW + 300},v1=${v1(SECRET, BODY, NOW + 300)}`), BODY, [SECRET], undefined],
  ['missing header', headers(undefined), BODY, [SECRET], 'missing_header'],
  ['empty header', headers(''), BODY, [SECRET], 'missing_header'],
  ['not key=value', headers('garbage'), BODY, [SECRET], 'malformed_header'],
  ['no t=', headers(`v1=${v1(SECRET)}`), BODY, [SECRET], 'malformed_header'],
  ['t= not a number', headers(`t=soon,v1=${v1(SECRET)}`), BODY, [SECRET], 'malformed_header'],
  ['t= in milliseconds', headers(`t=${NOW}000,v1=${v1(SECRET)}`), BODY, [SECRET], 'malformed_header'],
  ['t= duplicated', headers(`t=${NOW},t=${NOW},v1=${v1(SECRET)}`), BODY, [SECRET], 'malformed_header'],
  ['two signature headers joined by Node', headers(`t=${NOW},v1=${v1(SECRET)}, t=${NOW},v1=${v1(SECRET)}`), BODY, [SECRET], 'malformed_header'],
  ['no v1', headers(`t=${NOW}`), BODY, [SECRET], 'no_v1'],
  ['only v0', headers(`t=${NOW},v0=${v1(SECRET)}`), BODY, [SECRET], 'no_v1'],
  ['several v1, the second matches', headers(`t=${NOW},v1=${v1(OTHER)},v1=${v1(SECRET)}`), BODY, [SECRET], undefined],
  ['several v1, none matches', headers(`t=${NOW},v1=${v1(OTHER)},v1=${'0'.repeat(64)}`), BODY, [SECRET], 'signature_mismatch'],
  ['the same v1 twice', headers(`t=${NOW},v1=${v1(SECRET)},v1=${v1(SECRET)}`), BODY, [SECRET], undefined],
  ['two secrets (rotation), the new one signed', headers(`t=${NOW},v1=${v1(OTHER)}`), BODY, [SECRET, OTHER], undefined],
  [
    'alternative header name X-Service-Signature',
    { 'x-service-signature': `t=${NOW},v1=${v1(SECRET)}`, 'service-event': EVENT.type },
    BODY,
    [SECRET],
    undefined,
  ],
  [
    'both names: Service-Signature is the one checked',
    { 'service-signature': `t=${NOW},v1=${v1(OTHER)}`, 'x-service-signature': `t=${NOW},v1=${v1(SECRET)}`, 'service-event': EVENT.type },
    BODY,
    [SECRET],
    'signature_mismatch',
  ],
  ['whitespace changed in the body (re-indented JSON)', headers(`t=${NOW},v1=${v1(SECRET)}`), reencoded, [SECRET], 'signature_mismatch'],
  ['body not UTF-8, signature valid over its bytes', headers(`t=${NOW},v1=${v1(SECRET, notUtf8)}`), notUtf8, [SECRET], 'body_not_json'],
  ['body not JSON, signature valid', headers(`t=${NOW},v1=${v1(SECRET, 'hello')}`), Buffer.from('hello'), [SECRET], 'body_not_json'],
  ['empty body, signature valid', headers(`t=${NOW},v1=${v1(SECRET, '')}`), Buffer.alloc(0), [SECRET], 'body_not_json'],
  ['JSON but not an event', headers(`t=${NOW},v1=${v1(SECRET, '{"a":1}')}`), Buffer.from('{"a":1}'), [SECRET], 'envelope_invalid'],
];

describe('verifyDelivery: a case table', () => {
  it.each(CASES)('%s', (_name, incoming, body, secrets, reason) => {
    const verdict = verify(incoming, body, secrets);
    if (reason === undefined) {
      expect(verdict).toMatchObject({ ok: true, event: { id: EVENT.id, type: EVENT.type, resourceId: EVENT.data.id } });
    } else {
      expect(verdict).toMatchObject({ ok: false, reason });
      expect((verdict as { detail: string }).detail.length).toBeGreaterThan(0);
    }
  });

  it('says which of several secrets matched', () => {
    expect(verifySignature(`t=${NOW},v1=${v1(OTHER)}`, BODY, { secrets: [SECRET, OTHER], now: NOW })).toMatchObject({ ok: true, secretIndex: 1 });
  });

  it('keeps what a refused body claims, for showing it, without trusting it', () => {
    expect(verify(headers(`t=${NOW},v1=${v1(OTHER)}`))).toMatchObject({ ok: false, claimed: { id: EVENT.id, type: EVENT.type } });
  });

  it('signs one v1 per secret, and each verifies', () => {
    const header = signatureHeader([SECRET, OTHER], BODY, NOW);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verify(headers(header), BODY, [OTHER])).toMatchObject({ ok: true });
  });
});

const { id: _id, ...NO_ID } = EVENT;
const { data: _data, ...NO_DATA } = EVENT;

// [case, body: what part 6's envelope does not allow, although signed correctly]
const MALFORMED: Array<[string, unknown]> = [
  ['a JSON array', [EVENT]],
  ['a JSON string', '"evt_1"'],
  ['JSON null', 'null'],
  ['no id', NO_ID],
  ['an id without the evt_ prefix', { ...EVENT, id: 'rep_1' }],
  ['the evt_ prefix alone', { ...EVENT, id: 'evt_' }],
  ['an id that is a number', { ...EVENT, id: 7 }],
  ['no type', { ...EVENT, type: undefined }],
  ['an empty type', { ...EVENT, type: '' }],
  ['a type that is an object', { ...EVENT, type: { name: 'report.completed' } }],
  ['no data', NO_DATA],
  ['data that is an array', { ...EVENT, data: [EVENT.data] }],
  ['data that is a string', { ...EVENT, data: 'rep_1' }],
];

describe('verifyDelivery: the envelope part 6 states is enforced', () => {
  it.each(MALFORMED)('refuses %s with envelope_invalid, naming the field', (_name, value) => {
    const verdict = verify(...signed(value));
    expect(verdict).toMatchObject({ ok: false, reason: 'envelope_invalid', schemaNotes: [] });
    expect((verdict as { detail: string }).detail).toMatch(/(^|; )(id|type|data|the body is)\b.*\(part 6\)/);
  });

  it('checks the signature first: a forged body of any shape is refused for its signature, and nothing of it is examined', () => {
    const body = Buffer.from(JSON.stringify({ ...EVENT, type: 'report.archived' }));
    const verdict = verify({ 'service-signature': `t=${NOW},v1=${v1(OTHER, body)}` }, body);
    expect(verdict).toMatchObject({ ok: false, reason: 'signature_mismatch', schemaNotes: [] });
  });
});

const SHORT_COMPLETED = { id: 'evt_short1', type: 'report.completed', data: { report_id: 'rep_short1', risk_score: 40 } };

// [case, body, Service-Event header, resource id, the notes (each a pattern)]
const DIFFERENT: Array<[string, unknown, string | undefined, string | undefined, RegExp[]]> = [
  [
    "report.completed in part 6's shorter variant, without created_at",
    SHORT_COMPLETED,
    'report.completed',
    'rep_short1',
    [/^created_at: is required \(openapi\.yaml ReportCompletedEvent\)$/],
  ],
  [
    'report.created whose data is only an id',
    { id: 'evt_c1', type: 'report.created', created_at: '2026-01-01T00:00:00Z', data: { id: 'rep_c1' } },
    'report.created',
    'rep_c1',
    [/^data: object, applicant_id, .* are required \(openapi\.yaml ReportCreatedEvent\)$/],
  ],
  [
    'a kind openapi.yaml does not list',
    { id: 'evt_a1', type: 'report.archived', data: { id: 'rep_a1' } },
    'report.archived',
    'rep_a1',
    [/^type: "report\.archived" is not a kind openapi\.yaml lists \(report\.created, .*\)$/, /^created_at: is required \(openapi\.yaml EventEnvelope\)$/],
  ],
  [
    'a Service-Event header naming another kind',
    EVENT,
    'report.failed',
    EVENT.data.id as string,
    [/^Service-Event header: "report\.failed", but the signed body's type is "report\.completed"$/],
  ],
  [
    'document.rejected whose data names its document document_id',
    { ...sampleEvent('document.rejected', NOW * 1000), data: { document_id: 'doc_r1' } },
    undefined,
    'doc_r1',
    [/^data: id, type, status, reason are required/],
  ],
  [
    'an unlisted kind in the envelope of Stripe, data.object',
    { id: 'evt_s1', type: 'invoice.paid', created_at: '2026-01-01T00:00:00Z', data: { object: { id: 'in_1' } } },
    undefined,
    'in_1',
    [/^type: "invoice\.paid" is not a kind/],
  ],
  [
    'an unlisted kind whose data names no resource',
    { id: 'evt_n1', type: 'ping', created_at: '2026-01-01T00:00:00Z', data: {} },
    undefined,
    undefined,
    [/^type: "ping" is not a kind/],
  ],
];

describe('verifyDelivery: an authentic event that differs from openapi.yaml', () => {
  it.each(DIFFERENT)('accepts %s, with schema notes', (_name, value, serviceEvent, resourceId, notes) => {
    const verdict = verify(...signed(value, serviceEvent));
    expect(verdict).toMatchObject({ ok: true, event: { id: (value as { id: string }).id, type: (value as { type: string }).type, resourceId } });
    const { schemaNotes } = verdict as { schemaNotes: string[] };
    expect(schemaNotes).toHaveLength(notes.length);
    notes.forEach((note, index) => expect(schemaNotes[index]).toMatch(note));
  });

  it.each(DIFFERENT)('refuses %s with envelope_invalid under strictSchema, the notes as the detail', (_name, value, serviceEvent) => {
    const verdict = verify(...signed(value, serviceEvent), [SECRET], true);
    expect(verdict).toMatchObject({ ok: false, reason: 'envelope_invalid', claimed: { id: (value as { id: string }).id } });
    const { detail, schemaNotes } = verdict as { detail: string; schemaNotes: string[] };
    expect(schemaNotes.length).toBeGreaterThan(0);
    expect(detail).toBe(schemaNotes.join('; '));
  });

  it('has no notes for a sample of each kind openapi.yaml lists, also under strictSchema', () => {
    for (const type of EVENT_TYPES) {
      expect(verify(...signed(sampleEvent(type, NOW * 1000), type), [SECRET], true)).toMatchObject({ ok: true, schemaNotes: [] });
    }
  });

  it('names at most ten differences', () => {
    const data = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`extra${index}`, 1]));
    const verdict = verify(...signed({ ...EVENT, created_at: 'yesterday', data: { ...data, id: 5, risk_score: 'high' } }));
    const { schemaNotes } = verdict as { schemaNotes: string[] };
    expect(schemaNotes).toHaveLength(10);
    expect(schemaNotes[9]).toMatch(/^and \d+ more differences from openapi\.yaml$/);
  });
});

describe('sample events', () => {
  it.each(EVENT_TYPES)('%s is valid against its schema in openapi.yaml, with fresh ids', (type) => {
    const event = sampleEvent(type);
    expect(findProblems(EVENT_SCHEMAS[type], event)).toEqual([]);
    expect(event.id).toMatch(/^evt_[A-Za-z0-9]+$/);
    expect(sampleEvent(type).id).not.toBe(event.id);
  });
});
