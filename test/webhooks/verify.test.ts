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

function verify(incoming: IncomingHttpHeaders, body: Uint8Array = BODY, secrets = [SECRET]): DeliveryVerdict {
  return verifyDelivery(incoming, body, { secrets, toleranceSeconds: 300, now: NOW });
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
  ['alternative header name X-Service-Signature', { 'x-service-signature': `t=${NOW},v1=${v1(SECRET)}`, 'service-event': EVENT.type }, BODY, [SECRET], undefined],
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
  ['unknown event type', headers(`t=${NOW},v1=${v1(SECRET, JSON.stringify({ ...EVENT, type: 'report.exploded' }))}`, { 'service-event': 'report.exploded' }), Buffer.from(JSON.stringify({ ...EVENT, type: 'report.exploded' })), [SECRET], 'envelope_invalid'],
  ['Service-Event names another kind', headers(`t=${NOW},v1=${v1(SECRET)}`, { 'service-event': 'report.failed' }), BODY, [SECRET], 'envelope_invalid'],
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

describe('sample events', () => {
  it.each(EVENT_TYPES)('%s is valid against its schema in openapi.yaml, with fresh ids', (type) => {
    const event = sampleEvent(type);
    expect(findProblems(EVENT_SCHEMAS[type], event)).toEqual([]);
    expect(event.id).toMatch(/^evt_[A-Za-z0-9]+$/);
    expect(sampleEvent(type).id).not.toBe(event.id);
  });
});
