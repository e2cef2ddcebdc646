/** What the tests of `svc webhooks listen` send it, and how they read its store. */
import { connect } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import { Pool } from 'undici';
import type { EventType } from '../../../src/api/types.js';
import { EVENT_TYPES } from '../../../src/webhooks/envelope.js';
import { sampleEvent } from '../../../src/webhooks/samples.js';
import { signatureHeader } from '../../../src/webhooks/signature.js';

export const SECRET = 'whsec_listener0123456789abcdefghijklmnop';
const FORGER = 'whsec_forger00123456789abcdefghijklmnop';

export interface Delivery {
  id: string;
  kind: 'valid' | 'duplicate' | 'invalid';
  body: string;
  headers: Record<string, string>;
}

export function delivery(kind: Delivery['kind'], type: EventType, tamper?: 'secret' | 'body' | 'stale' | 'json'): Delivery {
  const event = sampleEvent(type);
  let body = JSON.stringify(event);
  let signature = signatureHeader(SECRET, body);
  if (tamper === 'secret') signature = signatureHeader(FORGER, body);
  if (tamper === 'body') body = body.replace('"data":{', '"data":{"x":1,');
  if (tamper === 'stale') signature = signatureHeader(SECRET, body, Math.floor(Date.now() / 1000) - 3600);
  if (tamper === 'json') {
    body = `${body.slice(0, -1)}`;
    signature = signatureHeader(SECRET, body);
  }
  return { id: event.id, kind, body, headers: { 'content-type': 'application/json', 'service-event': type, 'service-signature': signature } };
}

/** A burst: `valid` distinct events, `duplicates` repeats of some of them (a few right after their original, so they arrive together), `invalid` forged or broken ones; shuffled. */
export function burst(valid: number, duplicates: number, invalid: number): Delivery[] {
  const originals = Array.from({ length: valid }, (_, index) => delivery('valid', EVENT_TYPES[index % EVENT_TYPES.length]!));
  const repeats = Array.from({ length: duplicates }, (_, index) => ({ ...originals[(index * 7) % valid]!, kind: 'duplicate' as const }));
  const tampers = ['secret', 'body', 'stale', 'json'] as const;
  const forged = Array.from({ length: invalid }, (_, index) => delivery('invalid', 'report.completed', tampers[index % tampers.length]));
  const all = [...originals, ...repeats, ...forged];
  for (let index = all.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [all[index], all[other]] = [all[other]!, all[index]!];
  }
  return all;
}

/** Sends deliveries over `connections` keep-alive connections; the status of each (null: no answer). */
export async function send(
  url: string,
  deliveries: Delivery[],
  options: { connections?: number; onAnswer?: (acknowledged: number) => void } = {},
): Promise<Array<number | null>> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: options.connections ?? 32 });
  const statuses: Array<number | null> = new Array(deliveries.length).fill(null);
  let next = 0;
  let acknowledged = 0;
  const worker = async () => {
    while (next < deliveries.length) {
      const index = next++;
      const item = deliveries[index]!;
      try {
        const response = await pool.request({ path: '/hooks', method: 'POST', headers: item.headers, body: item.body });
        await response.body.dump();
        statuses[index] = response.statusCode;
        if (response.statusCode === 200) options.onAnswer?.(++acknowledged);
      } catch {
        statuses[index] = null;
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections ?? 32 }, worker));
  await pool.destroy();
  return statuses;
}

export function storedRows(store: string): Array<{ event_id: string | null; status: string; reason: string | null; duplicates: number }> {
  const db = new DatabaseSync(store, { readOnly: true });
  try {
    return db.prepare('SELECT event_id, status, reason, duplicates FROM events').all() as never;
  } finally {
    db.close();
  }
}

/** Writes raw bytes to the listener and resolves with what comes back before the connection closes (or after `waitMs`). */
export function raw(url: string, bytes: string | Buffer, waitMs = 3000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(answer);
    }, waitMs);
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.on('error', () => undefined);
    socket.write(bytes);
  });
}

export async function post(url: string, item: Delivery): Promise<{ status: number }> {
  const response = await fetch(`${url}/hooks`, { method: 'POST', headers: item.headers, body: item.body });
  await response.arrayBuffer();
  return { status: response.status };
}
