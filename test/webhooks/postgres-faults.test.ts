/**
 * The real `svc webhooks listen --store postgres://…` against a real PostgreSQL started for this file,
 * under what a forger or a stalled database does to it: a delivery's answer is its own, whatever else
 * shares its transaction, and every delivery is answered in time with the listener's memory bounded.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleEvent } from '../../src/webhooks/samples.js';
import { MAX_QUEUED_BYTES } from '../../src/webhooks/postgres-intake.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { HANG_MS } from '../helpers/hang.js';
import { type RunningListen, stoppedAfterEachTest } from '../helpers/listen.js';
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

function genuine(id = sampleEvent('report.completed').id, padding = 0): Delivery {
  const sample = sampleEvent('report.completed');
  const event = { ...sample, id, data: padding > 0 ? { ...sample.data, padding: 'x'.repeat(padding) } : sample.data };
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

/** Unsigned, of about `size` bytes. */
function forgedOfSize(index: number, size: number): Delivery {
  const body = JSON.stringify({ id: `evt_forged${index}`, type: 'report.completed', data: { id: 'rep_1', padding: 'x'.repeat(size) } });
  return { id: `forged ${index}`, body, headers: { 'content-type': 'application/json' } };
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

const MIB = 1024 * 1024;

/** The listener's resident memory, from /proc: now and its peak so far. */
function memory(listener: RunningListen): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${listener.process.pid}/status`, 'utf8');
  const bytes = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: bytes('VmRSS'), peak: bytes('VmHWM') };
}

/** Sends every delivery at once, each on a connection of its own; each answer with the milliseconds it took. */
async function sendAll(url: string, deliveries: Delivery[]): Promise<Array<{ status: number; body: string; ms: number }>> {
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
async function deliverUntilAccepted(url: string, delivery: Delivery): Promise<void> {
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

const accepted = (schema: string) => pg.psql(`SELECT event_id FROM ${schema}.events WHERE status = 'accepted'`).split('\n');

describe('a stalled database', () => {
  it('answers every delivery while a lock holds the events table, genuine ones 503, holds no forged body, and takes the retries once it is released', async () => {
    const listener = await listen([], env(), pg.url('stall'));
    expect((await sendAll(listener.url, [genuine()]))[0]!.status).toBe(200);
    const lock = pg.session();
    stopAfterTest(() => lock.close());
    await lock.run('BEGIN; LOCK TABLE stall.events IN ACCESS EXCLUSIVE MODE;');

    // 200 forged deliveries of 1 MB, 8 at a time, as a flood over 8 connections.
    const before = memory(listener);
    const forgeries = Array.from({ length: 200 }, (_, index) => forgedOfSize(index, 1_000_000));
    const forgedAnswers = [];
    for (let index = 0; index < forgeries.length; index += 8) forgedAnswers.push(...(await sendAll(listener.url, forgeries.slice(index, index + 8))));
    const after = memory(listener);
    console.log(
      `lock held, 200 forged deliveries of 1 MB: listener RSS ${Math.round(before.rss / MIB)} MiB before, ${Math.round(after.rss / MIB)} MiB after, ` +
        `peak ${Math.round(after.peak / MIB)} MiB; the latest answered after ${Math.max(...forgedAnswers.map((answer) => answer.ms))} ms`,
    );
    expect(forgedAnswers.map((answer) => answer.status)).toEqual(forgeries.map(() => 400));
    // The queue's bound, and as much again for reading 8 bodies at a time and the garbage collector's lag.
    expect(after.peak - before.rss).toBeLessThan(2 * MAX_QUEUED_BYTES);

    // Genuine deliveries of more bytes than the queue takes, each on a connection of its own, forged ones among them.
    const genuines = Array.from({ length: 100 }, () => genuine(undefined, 1_000_000));
    const sent = genuines.flatMap((delivery, index) => (index % 5 === 0 ? [delivery, forgeries[index]!] : [delivery]));
    const answers = await sendAll(listener.url, sent);
    const answerOf = (delivery: Delivery) => answers[sent.indexOf(delivery)]!;
    console.log(
      `lock held, ${genuines.length} genuine deliveries of 1 MB at once: the latest answered after ${Math.max(...answers.map((answer) => answer.ms))} ms; ` +
        `${listener.lines.filter((line) => /already wait for the database/.test(line.detail ?? '')).length} of them refused at once as the queue was full; ` +
        `listener RSS peak ${Math.round(memory(listener).peak / MIB)} MiB`,
    );
    expect(genuines.map((delivery) => answerOf(delivery).status)).toEqual(genuines.map(() => 503));
    for (const { body } of answers) expect(body).not.toMatch(POSTGRES_TEXT);

    await lock.run('COMMIT;');
    for (const delivery of genuines) await deliverUntilAccepted(listener.url, delivery);
    expect(accepted('stall')).toEqual(expect.arrayContaining(genuines.map((delivery) => delivery.id)));
  });

  it('answers every delivery while its connection to PostgreSQL hangs, genuine ones 503, and takes their retries once it is back', async () => {
    const proxy = await hangingProxy(join(pg.socketDirectory, '.s.PGSQL.5432'));
    stopAfterTest(() => proxy.close());
    const listener = await listen([], env(), `postgres://svc:${pg.password}@127.0.0.1:${proxy.port}/postgres?schema=hang`);
    expect((await sendAll(listener.url, [genuine()]))[0]!.status).toBe(200);
    proxy.hang();

    const genuines = Array.from({ length: 20 }, () => genuine());
    const forgeries = Array.from({ length: 20 }, (_, index) => forgedOfSize(index, 1000));
    const sent = genuines.flatMap((delivery, index) => [delivery, forgeries[index]!]);
    const answers = await sendAll(listener.url, sent);
    console.log(`connection hung: ${sent.length} deliveries answered, the latest after ${Math.max(...answers.map((answer) => answer.ms))} ms`);
    expect(genuines.map((delivery) => answers[sent.indexOf(delivery)]!.status)).toEqual(genuines.map(() => 503));
    expect(forgeries.map((delivery) => answers[sent.indexOf(delivery)]!.status)).toEqual(forgeries.map(() => 400));
    // The hung connection is given up, whatever the sender does meanwhile.
    await listener.waitFor(() => listener.stderr().includes('does not answer'));

    proxy.resume();
    for (const delivery of genuines) await deliverUntilAccepted(listener.url, delivery);
    expect(accepted('hang')).toEqual(expect.arrayContaining(genuines.map((delivery) => delivery.id)));
    await listener.waitFor(() => listener.stderr().includes('answers again'));
    expect(listener.stderr().match(/The event store does not answer/g)).toHaveLength(1);
  });
});

/**
 * A TCP proxy on 127.0.0.1 to PostgreSQL's Unix socket that can stop passing bytes on, both ways, as a
 * network that drops a connection's packets does: its connections stay open, saying nothing, and new
 * ones are taken but never reach the server, until it resumes.
 */
async function hangingProxy(target: string): Promise<{ port: number; hang(): void; resume(): void; close(): Promise<void> }> {
  let hanging = false;
  const pairs = new Set<[Socket, Socket]>();
  const held: Array<() => void> = [];
  const server = createServer((client) => {
    const upstream = connect(target);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    for (const socket of pair) {
      socket.on('error', () => undefined);
      socket.on('close', () => {
        pairs.delete(pair);
        for (const other of pair) other.destroy();
      });
    }
    const pass = () => {
      client.pipe(upstream);
      upstream.pipe(client);
    };
    if (hanging) held.push(pass);
    else pass();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    hang() {
      hanging = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
        held.push(() => {
          client.pipe(upstream);
          upstream.pipe(client);
        });
      }
    },
    resume() {
      hanging = false;
      for (const pass of held.splice(0)) pass();
    },
    async close() {
      for (const pair of pairs) for (const socket of pair) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
