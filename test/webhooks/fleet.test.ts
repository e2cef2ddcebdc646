/**
 * Three `svc webhooks listen` replicas on one PostgreSQL, sent 10,000 events at full scale (500 in `npm test`) as the service sends them
 * (retrying every delivery not answered 2xx, on another replica), a fifth of them delivered to two
 * replicas at once; one replica killed with SIGKILL in the middle and started again; PostgreSQL
 * restarted once. Every event acknowledged is stored once and forwarded once.
 */
import { Pool } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sampleEvent } from '../../src/webhooks/samples.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { HANG_MS } from '../helpers/hang.js';
import { type RunningListen, stoppedAfterEachTest } from '../helpers/listen.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startThreadedRecorder, type ThreadedRecorder } from '../helpers/receiver.js';
import { atScale } from '../helpers/scale.js';
import { isolatedEnv } from '../helpers/svc.js';

const SECRET = 'whsec_fleet0123456789abcdefghijklmnopqrst';
const EVENTS = atScale(10_000);
/** Of every this many events, one is delivered to two replicas at once. */
const TWICE_EVERY = 5;
const CONNECTIONS = 24;
const LEASE = '5s';

const { listen } = stoppedAfterEachTest(SECRET);
let app: ThreadedRecorder | undefined;

let pg: TestPostgres;
beforeAll(() => {
  pg = startPostgres();
});
afterAll(async () => {
  await app?.close();
  pg?.destroy();
});

interface Replica {
  listen: RunningListen;
  pool: Pool;
}

it(
  'stores and forwards exactly once every event acknowledged by a fleet of three, across a SIGKILL and a PostgreSQL restart',
  // At full scale (test:scale), 12,000 deliveries and 10,000 forwards through three processes and a database.
  { timeout: 600_000, tags: ['scale'] },
  async () => {
    // The application answers from a thread of its own: this thread, busy sending 12,000 deliveries, may
    // fall behind, and a forward it left unanswered for 10 s would count as not taken (at most once).
    app = await startThreadedRecorder();
    const store = pg.url('fleet');
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const args = ['--forward-to', app.url, '--forward-lease', LEASE];
    const start = async (): Promise<Replica> => {
      const running = await listen(args, env, store);
      return { listen: running, pool: new Pool(new URL(running.url).origin, { connections: CONNECTIONS }) };
    };
    // The load balancer's view: the replicas that take deliveries.
    const replicas: Replica[] = [];
    for (let index = 0; index < 3; index++) replicas.push(await start());

    const events = Array.from({ length: EVENTS }, () => {
      const event = sampleEvent('report.completed');
      return { id: event.id, body: JSON.stringify(event) };
    });
    const statuses = new Map<number | null, number>();
    const acknowledged = new Set<string>();
    let next = 0;
    let roundRobin = 0;
    let killed: Replica | undefined;
    /** The faults, one after the other: the replica killed (and a new one started) before PostgreSQL is restarted. */
    let faults = Promise.resolve();
    /** From the moment 60 % are acknowledged until PostgreSQL is down, no new event is sent: some then arrive while it is, whatever the scale. */
    let stopping: Promise<void> | undefined;
    let down: () => void = () => undefined;

    /** Delivers one event as the service does: again and again, on the next replica, until a 2xx. */
    const deliver = async (event: { id: string; body: string }, first: number) => {
      let target = first;
      const deadline = Date.now() + HANG_MS;
      for (;;) {
        const replica = replicas[target % replicas.length]!;
        let status: number | null = null;
        try {
          const headers = { 'content-type': 'application/json', 'service-event': 'report.completed', 'service-signature': signatureHeader(SECRET, event.body) };
          const response = await replica.pool.request({ path: '/hooks', method: 'POST', headers, body: event.body });
          await response.body.dump();
          status = response.statusCode;
        } catch {
          // No answer: the replica died under it.
        }
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status !== null && status >= 200 && status < 300) return;
        if (Date.now() > deadline) throw new Error(`${event.id} was never acknowledged; statuses so far: ${JSON.stringify([...statuses])}`);
        target++;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    const faultsAt = async (count: number) => {
      if (count === Math.floor(EVENTS * 0.3)) {
        [killed] = replicas.splice(1, 1);
        await killed!.listen.stop('SIGKILL');
        await killed!.pool.destroy();
        replicas.push(await start());
      }
      if (count === Math.floor(EVENTS * 0.6)) {
        await pg.restart(async () => {
          down();
          await refusedWhileDown();
        });
      }
    };

    /** Waits until a replica has answered 503 to a delivery while PostgreSQL is down. */
    const refusedWhileDown = async () => {
      const refusedBefore = statuses.get(503) ?? 0;
      const deadline = Date.now() + HANG_MS;
      while ((statuses.get(503) ?? 0) === refusedBefore) {
        if (Date.now() > deadline) throw new Error('no delivery was refused while PostgreSQL was down');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    const worker = async () => {
      while (next < events.length) {
        await stopping;
        if (next >= events.length) return;
        const index = next++;
        const event = events[index]!;
        const first = roundRobin++;
        // A fifth go to two replicas at once, as when the service retries a delivery still under way.
        await Promise.all(index % TWICE_EVERY === 0 ? [deliver(event, first), deliver(event, first + 1)] : [deliver(event, first)]);
        acknowledged.add(event.id);
        const count = acknowledged.size;
        if (count === Math.floor(EVENTS * 0.6)) stopping = new Promise((resolve) => (down = resolve));
        faults = faults.then(() => faultsAt(count));
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
    await faults;
    expect(killed).toBeDefined();

    // Every forward finished, those the killed replica left included (after its lease).
    const unfinished = () => Number(pg.psql('SELECT count(*) FROM fleet.events WHERE forward_url IS NOT NULL AND forwarded_at IS NULL'));
    const deadline = Date.now() + HANG_MS;
    while (unfinished() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
    expect(unfinished()).toBe(0);
    for (const replica of replicas) {
      await replica.listen.stop();
      await replica.pool.destroy();
    }

    // Only 2xx, 503 (PostgreSQL restarting) or no answer (the replica killed under the delivery).
    expect([...statuses.keys()].filter((status) => status !== 200 && status !== 503 && status !== null)).toEqual([]);
    expect(statuses.get(503) ?? 0).toBeGreaterThan(0);

    const rows = pg
      .psql("SELECT concat_ws(' ', event_id, duplicates, coalesce(forward_status::text, forward_error)) FROM fleet.events WHERE status = 'accepted'")
      .split('\n')
      .map((line) => line.split(' '));
    expect(rows).toHaveLength(EVENTS);
    expect(new Set(rows.map(([id]) => id))).toEqual(new Set(events.map((event) => event.id)));
    expect(rows.filter(([, , ...forwarded]) => forwarded.join(' ') !== '200')).toEqual([]);
    expect(rows.reduce((sum, [, duplicates]) => sum + Number(duplicates), 0)).toBeGreaterThanOrEqual(EVENTS / TWICE_EVERY);

    // Forwarded once each; a second time only an event the killed replica was forwarding (the
    // application may have had it before the kill, the outcome unrecorded), which another replica
    // took over once its lease expired. A live replica's forward is never taken from it.
    const survivors = replicas.map((replica) => replica.listen.lines);
    const acceptedBySurvivors = new Set(survivors.flat().flatMap((line) => (line.result === 'accepted' ? [line.event_id] : [])));
    const takenOver = new Set([...survivors, killed!.listen.lines].flat().flatMap((line) => (line.kind === 'takeover' ? [line.event_id!] : [])));
    expect([...takenOver].filter((id) => acceptedBySurvivors.has(id))).toEqual([]);
    const forwards = new Map<string, number>();
    for (const id of await app.ids()) forwards.set(id, (forwards.get(id) ?? 0) + 1);
    expect(forwards.size).toBe(EVENTS);
    expect([...forwards].filter(([id, count]) => count > (takenOver.has(id) ? 2 : 1))).toEqual([]);
  },
);
