import { describe, expect, it } from 'vitest';
import { claimedEvent } from '../../src/webhooks/envelope.js';
import { prefixObject } from '../../src/webhooks/prefix-json.js';
import { sampleEvent } from '../../src/webhooks/samples.js';

/** A plain copy, for comparing with toEqual (prefixObject's objects have no prototype). */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

describe('prefixObject: what the start of a JSON document says, read without parsing it', () => {
  it('reads the string members of the top object and of the objects in it down to the depth given, and passes over the rest', () => {
    const text = JSON.stringify({
      id: 'evt_1',
      count: 12.5e3,
      flags: [true, { id: 'in an array' }],
      none: null,
      data: { id: 'rep_1', object: { id: 'obj_1', deeper: { id: 'not read' } } },
      type: 'report.completed',
    });
    expect(plain(prefixObject(text, 3))).toEqual({ id: 'evt_1', data: { id: 'rep_1', object: { id: 'obj_1' } }, type: 'report.completed' });
    expect(plain(prefixObject(text, 1))).toEqual({ id: 'evt_1', type: 'report.completed' });
  });

  it("gives JSON.parse's strings for a whole document: escapes, white space, a repeated member (the last counts)", () => {
    const text = ' {\n "id" : "evt_\\u0041\\"\\\\" ,\t"type":"first", "type":"report.failed" } ';
    expect(plain(prefixObject(text, 3))).toEqual({ id: JSON.parse(text).id, type: 'report.failed' });
  });

  it('keeps what came before the point where the text ends or stops being JSON', () => {
    const text = JSON.stringify({ id: 'evt_1', data: { id: 'rep_1', note: 'cut off here' } });
    const cut = text.slice(0, text.indexOf('here'));
    expect(plain(prefixObject(cut, 3))).toEqual({ id: 'evt_1', data: { id: 'rep_1' } });
    expect(plain(prefixObject('{"id":"evt_1","type" "x"}', 3))).toEqual({ id: 'evt_1' });
    expect(plain(prefixObject('{"id":"evt_1","type":"bad \u0001 control"}', 3))).toEqual({ id: 'evt_1' });
  });

  it('passes over nesting of any depth by counting brackets, brackets in strings aside, and reads what follows', () => {
    const deep = `${'['.repeat(100_000)}"]]]"${']'.repeat(100_000)}`;
    expect(plain(prefixObject(`{"nest":${deep},"id":"evt_after"}`, 3))).toEqual({ id: 'evt_after' });
    expect(prefixObject(deep, 3)).toBeUndefined();
  });

  it('is undefined for a document that is not an object, and makes "__proto__" a member as JSON.parse does', () => {
    expect(prefixObject('"evt_1"', 3)).toBeUndefined();
    expect(prefixObject('', 3)).toBeUndefined();
    const read = prefixObject('{"__proto__":{"id":"evt_1"}}', 3)!;
    expect(read.id).toBeUndefined();
    expect(plain(read.__proto__)).toEqual({ id: 'evt_1' });
  });
});

describe('claimedEvent: what a body that failed verification claims', () => {
  it('is the id, type and resource of a whole event, as the envelope reading gives them', () => {
    const event = sampleEvent('report.completed');
    expect(claimedEvent(Buffer.from(JSON.stringify(event)))).toEqual({ id: event.id, type: event.type, resourceId: event.data.id });
    expect(claimedEvent(Buffer.from('{"id":"evt_s","type":"report.completed","data":{"report_id":"rep_s"}}'))).toMatchObject({ resourceId: 'rep_s' });
  });

  it('reads the first 4 KiB only, a character cut at their end left out, and nothing of a body that is not UTF-8 there', () => {
    const id = `evt_${'é'.repeat(2046)}`; // 4 + 2046 × 2 bytes: the 4 KiB end inside the string
    expect(claimedEvent(Buffer.from(JSON.stringify({ type: 'report.failed', id })))).toEqual({ type: 'report.failed' });
    const head = Buffer.from('{"id":"evt_1","type":"report.failed","data":{"id":"rep_');
    const split = Buffer.concat([head, Buffer.alloc(4096 - head.length - 1, 'a'), Buffer.from('é"}}')]);
    expect(claimedEvent(split)).toEqual({ id: 'evt_1', type: 'report.failed', resourceId: undefined });
    expect(claimedEvent(Buffer.concat([Buffer.from('{"id":"evt_1",'), Buffer.from([0xff])]))).toEqual({});
  });
});
