/**
 * The kit's webhook receiver, which anyone who can reach its port can send to: it takes no
 * unbounded body, waits for no slow client, keeps a bounded amount of a run's deliveries, and given
 * the webhook secret keeps only deliveries whose signature verifies.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BODY_LIMIT } from '../../src/inbound-http.js';
import { type ReceiverOptions, WebhookReceiver } from '../../src/conformance/receiver.js';
import { signatureHeader } from '../../src/webhooks/signature.js';

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

  it('answers 503 once the deliveries it keeps reach its bound, and counts them as noise', async () => {
    const { receiver, port } = await started({ keptBytesLimit: 1_000 });
    const body = Buffer.from(JSON.stringify({ id: 'evt_x', padding: 'p'.repeat(600) }));
    expect(await deliver(port, body)).toBe(200);
    expect(await deliver(port, body)).toBe(200);
    expect(await deliver(port, body)).toBe(503);
    expect(receiver.deliveries).toHaveLength(2);
    expect(Object.fromEntries(receiver.noise)).toEqual({ receiver_full: 1 });
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
});
