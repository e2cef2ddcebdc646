/** What the tests of `svc webhooks listen` against a faulty PostgreSQL send it: genuine and forged deliveries, all at once or until taken. */
import { Pool } from 'undici';
import { sampleEvent } from '../../../src/webhooks/samples.js';
import { signatureHeader } from '../../../src/webhooks/signature.js';
import { HANG_MS } from '../../helpers/hang.js';

export const SECRET = 'whsec_faults0123456789abcdefghijklmnopqr';

export interface Delivery {
  id: string;
  body: string;
  headers: Record<string, string>;
}

export function genuine(id = sampleEvent('report.completed').id, padding = 0): Delivery {
  const sample = sampleEvent('report.completed');
  const event = { ...sample, id, data: padding > 0 ? { ...sample.data, padding: 'x'.repeat(padding) } : sample.data };
  const body = JSON.stringify(event);
  return { id, body, headers: { 'content-type': 'application/json', 'service-event': event.type, 'service-signature': signatureHeader(SECRET, body) } };
}

/** Unsigned, claiming an id, type or resource that holds a NUL (or a lone surrogate), as JSON escapes them. */
export function forged(index: number): Delivery {
  const claims = [
    `{"id":"evt_forged\\u0000${index}","type":"report.completed","data":{"id":"rep_1"}}`,
    `{"id":"evt_forged${index}","type":"report.\\u0000completed","data":{"id":"rep_1"}}`,
    `{"id":"evt_forged${index}","type":"report.completed","data":{"id":"rep_\\u0000${index}"}}`,
    `{"id":"evt_forged\\ud800${index}","type":"report.completed","data":{"id":"rep_\\udfff"}}`,
  ];
  return { id: `forged ${index}`, body: claims[index % claims.length]!, headers: { 'content-type': 'application/json' } };
}

/** Unsigned, of about `size` bytes. */
export function forgedOfSize(index: number, size: number): Delivery {
  const body = JSON.stringify({ id: `evt_forged${index}`, type: 'report.completed', data: { id: 'rep_1', padding: 'x'.repeat(size) } });
  return { id: `forged ${index}`, body, headers: { 'content-type': 'application/json' } };
}

export async function post(pool: Pool, delivery: Delivery): Promise<{ status: number; body: string }> {
  const response = await pool.request({ path: '/hooks', method: 'POST', headers: delivery.headers, body: delivery.body });
  return { status: response.statusCode, body: await response.body.text() };
}

export const POSTGRES_TEXT = /invalid byte sequence|unsupported Unicode|index row size|btree|postgres|SQL|ECONN|CONNECT_TIMEOUT|CONNECTION_/i;

/** Sends every delivery at once, each on a connection of its own; each answer with the milliseconds it took. */
export async function sendAll(url: string, deliveries: Delivery[]): Promise<Array<{ status: number; body: string; ms: number }>> {
  const pool = new Pool(new URL(url).origin, { connections: deliveries.length, headersTimeout: HANG_MS, bodyTimeout: HANG_MS });
  try {
    return await Promise.all(
      deliveries.map(async (delivery) => {
        const started = performance.now();
        const answer = await post(pool, delivery);
        return { ...answer, ms: Math.round(performance.now() - started) };
      }),
    );
  } finally {
    await pool.destroy();
  }
}

/** Sends a delivery again and again, as the service retries, until it is answered 200. */
export async function deliverUntilAccepted(url: string, delivery: Delivery): Promise<void> {
  const pool = new Pool(new URL(url).origin, { connections: 1 });
  try {
    const deadline = Date.now() + HANG_MS;
    while ((await post(pool, delivery)).status !== 200) {
      if (Date.now() > deadline) throw new Error(`${delivery.id} was never accepted`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await pool.destroy();
  }
}
