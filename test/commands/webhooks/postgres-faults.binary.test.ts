/**
 * The real `svc webhooks listen --store postgres://…` against a real PostgreSQL started for this file,
 * a lock holding its events table: every delivery answered in time, and the listener's memory bounded,
 * read from its process's /proc status (the rest: postgres-faults.test.ts, in the test's process).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { MAX_QUEUED_BYTES } from '../../../src/webhooks/postgres-intake.js';
import { type RunningListen, stoppedAfterEachTest } from '../../helpers/listen.js';
import { type Delivery, deliverUntilAccepted, forgedOfSize, genuine, POSTGRES_TEXT, SECRET, sendAll } from './postgres-faults-fixtures.js';

const { listen, stopAfterTest } = stoppedAfterEachTest(SECRET);

let pg: TestPostgres;
beforeAll(() => {
  pg = startPostgres();
});
afterAll(() => pg?.destroy());

const env = () => isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });

const MIB = 1024 * 1024;

/** The listener's resident memory, from /proc: now and its peak so far. */
function memory(listener: RunningListen): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${listener.process.pid}/status`, 'utf8');
  const bytes = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: bytes('VmRSS'), peak: bytes('VmHWM') };
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
});
