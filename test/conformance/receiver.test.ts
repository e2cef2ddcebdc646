/**
 * The kit's webhook receiver, which anyone who can reach its port can send to: it takes no
 * unbounded body, waits for no slow client, keeps a bounded amount of a run's deliveries (headers
 * counted), and given the webhook secret keeps only deliveries whose signature verifies.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BODY_LIMIT } from '../../src/core/inbound-http.js';
import { CheckFailure, SetupError } from '../../src/conformance/outcome.js';
import { namesAnother, type ReceiverOptions, WebhookReceiver } from '../../src/conformance/receiver.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { steppingClock } from '../helpers/clock.js';

const SECRET = 'whsec_receiverunit0123456789abcdefghijklmn';

const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});

async function started(options?: ReceiverOptions): Promise<{ receiver: WebhookReceiver; port: number }> {
  const receiver = new WebhookReceiver(options);
  receivers.push(receiver);
  return { receiver, port: await receiver.start(0, '127.0.0.1') };
}

function deliver(port: number, body: Buffer, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/json', ...headers } },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe("the kit's webhook receiver", () => {
  it('refuses a body over its limit with 413 and keeps nothing of it', async () => {
    const { receiver, port } = await started();
    expect(await deliver(port, Buffer.alloc(DEFAULT_BODY_LIMIT + 1, 'a'))).toBe(413);
    expect(await deliver(port, Buffer.from('{"id":"evt_1"}'))).toBe(200);
    expect(receiver.deliveries.map((delivery) => delivery.text)).toEqual(['{"id":"evt_1"}']);
  });

  it('closes a connection whose headers trickle in a byte at a time', async () => {
    const { port } = await started();
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    const head = 'POST / HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: ' + 'a'.repeat(100);
    let sent = 0;
    const trickle = setInterval(() => socket.writable && socket.write(head[sent++ % head.length]!), 200);
    const closed = await new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
    clearInterval(trickle);
    expect(closed).toBe(true);
    // It was cut off while still sending its headers, not after it finished them.
    expect(sent).toBeLessThan(head.length);
  });

  it('waits for several events one timeout in all, not one each, when none of them comes', async () => {
    const clock = steppingClock();
    const { receiver, port } = await started({ clock });
    // Something reached it: the subscription delivers here, so each wait runs to its timeout.
    expect(await deliver(port, Buffer.from('{"id":"evt_other","type":"report.completed"}'))).toBe(200);
    const never = { predicate: () => false, since: 0 };
    const before = clock.now();
    await receiver.waitForEach([never, never, never], 30_000);
    expect(clock.now() - before).toBe(30_000);
  });

  it('ends its wait for several events as soon as each has its delivery', async () => {
    const clock = steppingClock();
    const { receiver, port } = await started({ clock });
    for (const id of ['evt_1', 'evt_2']) expect(await deliver(port, Buffer.from(JSON.stringify({ id })))).toBe(200);
    const waits = ['evt_1', 'evt_2'].map((id) => ({ predicate: (delivery: { text: string }) => delivery.text.includes(id), since: 0 }));
    const before = clock.now();
    await receiver.waitForEach(waits, 30_000);
    expect(clock.now()).toBe(before);
  });

  it('answers 503 once the deliveries it keeps reach its bound, and counts them as noise', async () => {
    const { receiver, port } = await started({ limits: { bytes: 1024 * 1024, deliveries: 2 } });
    const body = Buffer.from(JSON.stringify({ id: 'evt_x' }));
    expect(await deliver(port, body)).toBe(200);
    expect(await deliver(port, body)).toBe(200);
    expect(await deliver(port, body)).toBe(503);
    expect(receiver.deliveries).toHaveLength(2);
    expect(Object.fromEntries(receiver.noise)).toEqual({ receiver_full: 1 });
  });

  it('counts headers in its bound: empty deliveries of 14 KB of headers fill it', async () => {
    const limit = 256 * 1024;
    const { receiver, port } = await started({ limits: { bytes: limit, deliveries: 10_000 } });
    const headers: Record<string, string> = {};
    for (let index = 0; index < 14; index++) headers[`x-padding-${index}`] = 'p'.repeat(1_000);
    const statuses: number[] = [];
    for (let index = 0; index < 40; index++) statuses.push(await deliver(port, Buffer.alloc(0), headers));
    const kept = receiver.deliveries.length;
    expect(kept).toBeGreaterThan(0);
    expect(kept * 14_000).toBeLessThanOrEqual(limit);
    expect(statuses).toEqual([...Array<number>(kept).fill(200), ...Array<number>(40 - kept).fill(503)]);
    expect(receiver.noise.get('receiver_full')).toBe(40 - kept);
  });

  it('given the secret, keeps only deliveries whose signature verifies; the others are noise, answered 400, by reason', async () => {
    const { receiver, port } = await started({ secret: SECRET });
    const body = JSON.stringify({ id: 'evt_1', type: 'report.created', data: {} });
    expect(await deliver(port, Buffer.from('not an event'))).toBe(400);
    expect(await deliver(port, Buffer.from(body), { 'service-signature': signatureHeader('whsec_another', body) })).toBe(400);
    expect(await deliver(port, Buffer.from(body), { 'service-signature': `v1=${signatureHeader(SECRET, body).split('v1=')[1]}` })).toBe(400);
    expect(await deliver(port, Buffer.from(body), { 'x-service-signature': signatureHeader(SECRET, body) })).toBe(200);
    expect(receiver.deliveries.map((delivery) => delivery.text)).toEqual([body]);
    expect(Object.fromEntries(receiver.noise)).toEqual({ missing_header: 1, signature_mismatch: 1, malformed_header: 1 });
    expect(receiver.authenticated).toBe(true);
  });

  it('given the secret, a flood of forged deliveries takes no room from a genuine one', async () => {
    const { receiver, port } = await started({ secret: SECRET, limits: { bytes: 64 * 1024, deliveries: 5 } });
    const headers: Record<string, string> = {};
    for (let index = 0; index < 14; index++) headers[`x-padding-${index}`] = 'p'.repeat(1_000);
    for (let index = 0; index < 20; index++) expect(await deliver(port, Buffer.alloc(0), headers)).toBe(400);
    const body = JSON.stringify({ id: 'evt_1', type: 'report.completed', data: {} });
    expect(await deliver(port, Buffer.from(body), { 'service-signature': signatureHeader(SECRET, body) })).toBe(200);
    expect(receiver.deliveries).toHaveLength(1);
    expect(receiver.noiseCount).toBe(20);
  });

  it("tells an absence that says nothing (nothing at all arrived) from one the implementation's other deliveries make a failure", async () => {
    const finding = { expected: 'report.created for rep_mine', got: 'none within 30 s' };
    const { receiver, port } = await started();
    const nothing = receiver.absence(finding);
    expect(nothing).toBeInstanceOf(SetupError);
    expect(nothing.message).toContain(`nothing at all arrived at the kit's receiver (http://127.0.0.1:${port}/) during the run`);
    expect(nothing.message).toContain(`subscribe http://127.0.0.1:${port}/ to the implementation's events`);
    // Another pipeline's report: the subscription reaches this kit, so the awaited event's absence is the implementation's.
    expect(await deliver(port, Buffer.from(JSON.stringify({ id: 'evt_1', type: 'report.created', data: { id: 'rep_theirs' } })))).toBe(200);
    expect(receiver.absence(finding)).toBeInstanceOf(CheckFailure);
  });
});

describe('namesAnother', () => {
  it("tells a delivery about another resource of the same kind (another pipeline's) from one about the kit's or about none", () => {
    const about = (data: unknown) => ({ id: 'evt_1', type: 'report.created', data });
    expect(namesAnother(about({ id: 'rep_theirs' }), 'rep_mine')).toBe(true);
    expect(namesAnother(about({ report: { id: 'rep_theirs', applicant_id: 'app_1' } }), 'rep_mine')).toBe(true);
    expect(namesAnother(about({ id: 'rep_mine' }), 'rep_mine')).toBe(false);
    // A payload that names no report (report.created's is not shown) may be the kit's.
    expect(namesAnother(about({ applicant_id: 'app_1' }), 'rep_mine')).toBe(false);
    expect(namesAnother(about({ id: '1041' }), '1040')).toBe(false);
  });
});
