/**
 * `svc webhooks listen --store postgres://…`, in the test's process, against a real PostgreSQL started for
 * this file, under what a forger or a hung connection does to it: a delivery's answer is its own, whatever
 * else shares its transaction, and every delivery is answered in time. (Its memory under a lock held:
 * postgres-faults.binary.test.ts, from the process's own figures.)
 */
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { startListenInProcess, stoppedAfterEachTest } from '../../helpers/listen.js';
import { type Delivery, deliverUntilAccepted, forged, forgedOfSize, genuine, post, POSTGRES_TEXT, SECRET, sendAll } from './postgres-faults-fixtures.js';

const { listen, stopAfterTest } = stoppedAfterEachTest(SECRET, startListenInProcess);

let pg: TestPostgres;
beforeAll(() => {
  pg = startPostgres();
});
afterAll(() => pg?.destroy());

const env = () => isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });

const accepted = (schema: string) => pg.psql(`SELECT event_id FROM ${schema}.events WHERE status = 'accepted'`).split('\n');

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

describe('a hung connection to the database', () => {
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
