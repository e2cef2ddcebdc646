/**
 * The real `svc webhooks listen --store postgres://…` against a real PostgreSQL started for this file,
 * under what a forger or a stalled database does to it: a delivery's answer is its own, whatever else
 * shares its transaction, and every delivery is answered in time with the listener's memory bounded.
 */
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleEvent } from '../../src/webhooks/samples.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { stoppedAfterEachTest } from '../helpers/listen.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { isolatedEnv } from '../helpers/svc.js';

const SECRET = 'whsec_faults0123456789abcdefghijklmnopqr';
const { listen, stopAfterTest } = stoppedAfterEachTest(SECRET);
const env = () => isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });

let pg: TestPostgres;
beforeAll(() => {
  pg = startPostgres();
});
afterAll(() => pg?.destroy());

interface Delivery {
  id: string;
  body: string;
  headers: Record<string, string>;
}

function genuine(id = sampleEvent('report.completed').id): Delivery {
  const event = { ...sampleEvent('report.completed'), id };
  const body = JSON.stringify(event);
  return { id, body, headers: { 'content-type': 'application/json', 'service-event': event.type, 'service-signature': signatureHeader(SECRET, body) } };
}

/** Unsigned, claiming an id, type or resource that holds a NUL (or a lone surrogate), as JSON escapes them. */
function forged(index: number): Delivery {
  const claims = [
    `{"id":"evt_forged\\u0000${index}","type":"report.completed","data":{"id":"rep_1"}}`,
    `{"id":"evt_forged${index}","type":"report.\\u0000completed","data":{"id":"rep_1"}}`,
    `{"id":"evt_forged${index}","type":"report.completed","data":{"id":"rep_\\u0000${index}"}}`,
    `{"id":"evt_forged\\ud800${index}","type":"report.completed","data":{"id":"rep_\\udfff"}}`,
  ];
  return { id: `forged ${index}`, body: claims[index % claims.length]!, headers: { 'content-type': 'application/json' } };
}

async function post(pool: Pool, delivery: Delivery): Promise<{ status: number; body: string }> {
  const response = await pool.request({ path: '/hooks', method: 'POST', headers: delivery.headers, body: delivery.body });
  return { status: response.statusCode, body: await response.body.text() };
}

const POSTGRES_TEXT = /invalid byte sequence|unsupported Unicode|index row size|btree|postgres|SQL|ECONN|CONNECT_TIMEOUT|CONNECTION_/i;

describe("a delivery's answer is its own", () => {
  it('answers every genuine delivery 200 and stores it while forged ones claiming NUL share its transactions; a genuine one that cannot be stored fails alone, its 503 telling nothing of PostgreSQL', async () => {
    const listener = await listen([], env(), pg.url('isolation'));
    const pool = new Pool(new URL(listener.url).origin, { connections: 8 });
    stopAfterTest(() => pool.destroy());
    const genuines = Array.from({ length: 80 }, () => genuine());
    const forgeries = Array.from({ length: 80 }, (_, index) => forged(index));
    // A genuine event whose id is too long for the unique index: PostgreSQL refuses that row alone.
    const unstorable = genuine(`evt_${randomBytes(4000).toString('hex')}`);
    const sent = [...genuines.flatMap((delivery, index) => [delivery, forgeries[index]!]), unstorable];
    const answers = await Promise.all(sent.map((delivery) => post(pool, delivery)));
    const answerOf = (delivery: Delivery) => answers[sent.indexOf(delivery)]!;

    const refused = genuines.filter((delivery) => answerOf(delivery).status !== 200);
    console.log(`genuine deliveries refused beside ${forgeries.length} forged ones: ${refused.length} of ${genuines.length}`);
    expect(refused.map((delivery) => answerOf(delivery))).toEqual([]);
    expect(forgeries.map((delivery) => answerOf(delivery).status)).toEqual(forgeries.map(() => 400));
    expect(answerOf(unstorable).status).toBe(503);
    expect(JSON.parse(answerOf(unstorable).body)).toEqual({
      error: { code: 'store_failed', message: 'the event store is unavailable: the delivery was not stored; send it again' },
    });
    for (const { body } of answers) expect(body).not.toMatch(POSTGRES_TEXT);

    const stored = pg.psql("SELECT event_id FROM isolation.events WHERE status = 'accepted'").split('\n');
    expect(new Set(stored)).toEqual(new Set(genuines.map((delivery) => delivery.id)));
    // What the forged ones claimed is kept, NUL and lone surrogates as U+FFFD, within the claims' 200 characters.
    await listener.waitFor((lines) => lines.filter((line) => line.result === 'rejected').length === forgeries.length);
    const kept = () => pg.psql("SELECT concat_ws(' ', event_id, type, resource_id) FROM isolation.events WHERE status = 'rejected'").split('\n');
    const deadline = Date.now() + 10_000;
    while (kept().length < forgeries.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(kept()).toHaveLength(forgeries.length);
    expect(kept()).toContain('evt_forged\uFFFD0 report.completed rep_1');
    expect(kept()).toContain('evt_forged\uFFFD3 report.completed rep_\uFFFD');
    expect(listener.stderr()).not.toMatch(/does not answer|answers again/);
  });
});
