/**
 * Anyone who can reach `svc webhooks listen` can send it deliveries that fail verification. Each is
 * kept for inspection with at most the first 4 KiB of its body, only the newest within a count and
 * a byte limit, and for a limited time, so that forged deliveries cannot fill the disk; verified
 * events are kept whole and for good. Nothing of a forged body beyond those 4 KiB is read, so that
 * bodies costly to parse cannot hold up genuine deliveries. The real binary, real sockets, real
 * SQLite files.
 */
import { existsSync, statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { Pool } from 'undici';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { sampleEvent } from '../../../src/webhooks/samples.js';
import { signatureHeader } from '../../../src/webhooks/signature.js';
import { REJECTED_BODY_BYTES } from '../../../src/webhooks/event-rows.js';
import { EventStore } from '../../../src/webhooks/sqlite-store.js';
import { startListenInProcess, stoppedAfterEachTest } from '../../helpers/listen.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

const SECRET = 'whsec_rejected0123456789abcdefghijklmnop';
const FORGER = 'whsec_forger_rejected0123456789abcdefghi';
const MIB = 1024 * 1024;
const DAY = 86_400_000;

const { listen } = stoppedAfterEachTest(SECRET, startListenInProcess);

/** A delivery signed with a secret the listener does not hold, its body padded to `size` bytes. */
function forged(index: number, size: number): { id: string; body: string; headers: Record<string, string> } {
  const id = `evt_forged${String(index).padStart(5, '0')}`;
  const envelope = (padding: string) => JSON.stringify({ id, type: 'report.completed', data: { id: 'rep_forged', padding } });
  const body = envelope('p'.repeat(Math.max(0, size - envelope('').length)));
  return { id, body, headers: { 'content-type': 'application/json', 'service-event': 'report.completed', 'service-signature': signatureHeader(FORGER, body) } };
}

/** Signed with a secret the listener does not hold. */
function forgedBody(body: string): { body: string; headers: Record<string, string> } {
  return { body, headers: { 'content-type': 'application/json', 'service-signature': signatureHeader(FORGER, body) } };
}

function valid(): { id: string; body: string; headers: Record<string, string> } {
  const event = sampleEvent('report.completed');
  const body = JSON.stringify(event);
  return {
    id: event.id,
    body,
    headers: { 'content-type': 'application/json', 'service-event': event.type, 'service-signature': signatureHeader(SECRET, body) },
  };
}

/** Posts the deliveries in order over `connections` keep-alive connections; their statuses. */
async function post(url: string, deliveries: Array<{ body: string; headers: Record<string, string> }>, connections = 1): Promise<number[]> {
  const pool = new Pool(new URL(url).origin, { connections });
  const statuses: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < deliveries.length) {
      const index = next++;
      const response = await pool.request({ path: '/hooks', method: 'POST', headers: deliveries[index]!.headers, body: deliveries[index]!.body });
      await response.body.dump();
      statuses[index] = response.statusCode;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  await pool.destroy();
  return statuses;
}

/** The store's files on disk: the database, its write-ahead log and its shared-memory index. */
function storeBytes(store: string): number {
  return [store, `${store}-wal`, `${store}-shm`].reduce((sum, file) => sum + (existsSync(file) ? statSync(file).size : 0), 0);
}

interface StoredJson {
  event_id: string;
  status: string;
  detail: string | null;
  headers: Record<string, string>;
  body?: string;
  body_prefix?: string;
  body_size: number;
  body_truncated: boolean;
}

async function stored(store: string, env: Record<string, string>, ...args: string[]): Promise<StoredJson[]> {
  const result = await svcInProcess(['webhooks', 'events', '--store', store, '--limit', '100000', '--json', ...args], { env });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

/** What a rejected row counts for against --rejected-max-bytes. */
const rowBytes = (row: StoredJson) =>
  Buffer.byteLength(row.body_prefix ?? row.body ?? '') + Buffer.byteLength(JSON.stringify(row.headers)) + Buffer.byteLength(row.detail ?? '');

describe('svc webhooks listen keeps rejected deliveries small, few and not for long', () => {
  it('keeps the first 4 KiB of each forged 1 MiB delivery: 200 of them leave the store, WAL included, under 64 MiB', { timeout: 120_000 }, async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const running = await listen([], env);
    const before = valid();
    const deliveries = Array.from({ length: 200 }, (_, index) => forged(index, MIB));
    const after = valid();
    expect(await post(running.url, [before])).toEqual([200]);
    const statuses = await post(running.url, deliveries, 8);
    expect(statuses.every((status) => status === 400)).toBe(true);
    expect(await post(running.url, [after])).toEqual([200]);
    await running.waitFor((lines) => lines.length === 202);

    // While the listener runs, WAL included: 200 MiB were sent.
    expect(storeBytes(running.store)).toBeLessThan(64 * MIB);
    const rejected = await stored(running.store, env, '--status', 'rejected');
    expect(rejected).toHaveLength(200);
    for (const row of rejected) {
      expect(row).toMatchObject({ body_size: MIB, body_truncated: true });
      expect(row.body).toBeUndefined();
      expect(Buffer.byteLength(row.body_prefix!)).toBe(REJECTED_BODY_BYTES);
      expect(deliveries.find((delivery) => delivery.id === row.event_id)!.body.startsWith(row.body_prefix!)).toBe(true);
    }
    // Verified events are kept whole.
    const accepted = await stored(running.store, env, '--status', 'accepted');
    expect(accepted.map((row) => [row.event_id, row.body, row.body_truncated])).toEqual([
      [after.id, after.body, false],
      [before.id, before.body, false],
    ]);

    const table = await svcInProcess(['webhooks', 'events', '--store', running.store, '--status', 'rejected', '--limit', '1'], { env });
    expect(table.stdout).toContain(`rejected: signature_mismatch, first ${REJECTED_BODY_BYTES} of ${MIB} bytes kept`);
    // A rejected delivery is never sent on as if it were whole.
    const replay = await svcInProcess(['webhooks', 'replay', deliveries[0]!.id, '--store', running.store, '--forward-to', 'http://127.0.0.1:9/hooks'], { env });
    expect(replay.code).toBe(ExitCode.notFound);
  });

  it('keeps only the newest --rejected-max-count rejected deliveries; verified events are all kept', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const running = await listen(['--rejected-max-count', '5'], env);
    const events = [valid(), valid(), valid()];
    const deliveries = Array.from({ length: 12 }, (_, index) => forged(index, 300));
    await post(running.url, [events[0]!, ...deliveries.slice(0, 6), events[1]!, ...deliveries.slice(6), events[2]!]);
    expect((await stored(running.store, env, '--status', 'rejected')).map((row) => row.event_id)).toEqual(
      deliveries
        .slice(7)
        .reverse()
        .map((delivery) => delivery.id),
    );
    expect((await stored(running.store, env, '--status', 'accepted')).map((row) => row.event_id)).toEqual(events.reverse().map((event) => event.id));
  });

  it('keeps only the newest rejected deliveries that fit in --rejected-max-bytes', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const limit = 20_000;
    const running = await listen(['--rejected-max-bytes', String(limit)], env);
    const deliveries = Array.from({ length: 10 }, (_, index) => forged(index, MIB));
    await post(running.url, deliveries);
    const kept = await stored(running.store, env, '--status', 'rejected');
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.map((row) => row.event_id)).toEqual(
      deliveries
        .slice(-kept.length)
        .reverse()
        .map((delivery) => delivery.id),
    );
    const bytes = kept.reduce((sum, row) => sum + rowBytes(row), 0);
    expect(bytes).toBeLessThanOrEqual(limit);
    // One more of the same kind would not have fitted.
    expect(bytes + Math.min(...kept.map(rowBytes))).toBeGreaterThan(limit);
  });

  it('deletes rejected deliveries older than --rejected-ttl (7 days by default) as it starts, counting those of a store made before these limits', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const store = `${env.HOME}/events.db`;
    // A store of an earlier svc: rejected bodies kept whole, none of today's columns, triggers or totals.
    const old = new DatabaseSync(store);
    old.exec(`CREATE TABLE events (seq INTEGER PRIMARY KEY, event_id TEXT, type TEXT, resource_id TEXT,
      status TEXT NOT NULL CHECK (status IN ('accepted', 'rejected')), reason TEXT, detail TEXT, received_at INTEGER NOT NULL,
      duplicates INTEGER NOT NULL DEFAULT 0, headers TEXT NOT NULL, body BLOB NOT NULL, forward_url TEXT, forward_status INTEGER, forward_error TEXT, forwarded_at INTEGER)`);
    const insert = old.prepare("INSERT INTO events (event_id, status, reason, received_at, headers, body) VALUES (?, ?, 'signature_mismatch', ?, '{}', ?)");
    const now = Date.now();
    insert.run('evt_rejected8d', 'rejected', now - 8 * DAY, Buffer.alloc(MIB, 0x61));
    insert.run('evt_rejected6d', 'rejected', now - 6 * DAY, Buffer.alloc(MIB, 0x62));
    insert.run('evt_rejected1h', 'rejected', now - 3_600_000, Buffer.alloc(MIB, 0x63));
    insert.run('evt_accepted8d', 'accepted', now - 8 * DAY, Buffer.from('{}'));
    old.close();

    const first = await listen([], env, store);
    await first.stop();
    expect((await stored(store, env)).map((row) => row.event_id)).toEqual(['evt_accepted8d', 'evt_rejected1h', 'evt_rejected6d']);
    // Kept whole by the earlier svc, and shown as such.
    expect((await stored(store, env, '--status', 'rejected'))[0]).toMatchObject({ body_size: MIB, body_truncated: false });

    const second = await listen(['--rejected-ttl', '2d'], env, store);
    await second.stop();
    expect((await stored(store, env)).map((row) => row.event_id)).toEqual(['evt_accepted8d', 'evt_rejected1h']);

    // The old row's 1 MiB counts against the byte limit: the next rejected delivery pushes it out.
    const third = await listen(['--rejected-max-bytes', String(MIB)], env, store);
    await post(third.url, [forged(1, 300)]);
    expect((await stored(store, env)).map((row) => row.event_id)).toEqual(['evt_forged00001', 'evt_accepted8d']);
  });
});

describe('svc webhooks listen reads no more of a forged body than the first 4 KiB it keeps', () => {
  it('takes what a forged body claims from its first 4 KiB only: claims after them are not read, and what follows them does not matter', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const running = await listen([], env);
    // Valid JSON, but its id, type and resource come after the first 4 KiB.
    const late = forgedBody(JSON.stringify({ data: { padding: 'p'.repeat(REJECTED_BODY_BYTES), id: 'rep_late' }, id: 'evt_late', type: 'report.completed' }));
    // Its claims come first, and nearly a megabyte later it stops being JSON.
    const early = forgedBody(`{"id":"evt_early","type":"report.completed","data":{"id":"rep_early","padding":"${'p'.repeat(MIB - 200)}"}}]]] not JSON`);
    expect(await post(running.url, [late, early])).toEqual([400, 400]);
    await running.waitFor((lines) => lines.length === 2);
    expect(running.lines.map((line) => [line.reason, line.event_id, line.type, line.resource_id])).toEqual([
      ['signature_mismatch', null, null, null],
      ['signature_mismatch', 'evt_early', 'report.completed', 'rep_early'],
    ]);
    const rejected = await stored(running.store, env, '--status', 'rejected');
    expect(rejected.map((row) => [row.event_id, row.body_size, row.body_truncated])).toEqual([
      ['evt_early', Buffer.byteLength(early.body), true],
      [null, Buffer.byteLength(late.body), true],
    ]);
  });

  it('answers and stores genuine deliveries while forged 1 MiB bodies of nested arrays keep arriving, and reads no claim from them', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const running = await listen([], env);
    const nested = forgedBody(`${'['.repeat(MIB / 2)}${']'.repeat(MIB / 2)}`);
    const connections = 16;
    const pool = new Pool(new URL(running.url).origin, { connections });
    const forgedStatuses: number[] = [];
    let flooding!: () => void;
    const underway = new Promise<void>((resolve) => (flooding = resolve));
    let genuineAnswered = false;
    const forger = async () => {
      do {
        const response = await pool.request({ path: '/hooks', method: 'POST', headers: nested.headers, body: nested.body });
        await response.body.dump();
        forgedStatuses.push(response.statusCode);
        flooding();
      } while (!genuineAnswered);
    };
    const forging = Promise.all(Array.from({ length: connections }, forger));
    await underway;
    const genuine = Array.from({ length: 20 }, valid);
    // All at once, each on a connection of its own, while the forged ones are in flight.
    const statuses = await post(running.url, genuine, genuine.length);
    genuineAnswered = true;
    await forging;
    await pool.destroy();

    expect(statuses).toEqual(genuine.map(() => 200));
    expect(forgedStatuses.every((status) => status === 400)).toBe(true);
    await running.waitFor((lines) => lines.length === genuine.length + forgedStatuses.length);
    expect(running.lines[0]).toMatchObject({ result: 'rejected' });
    const forged = running.lines.filter((line) => line.result === 'rejected');
    expect(forged.every((line) => line.reason === 'signature_mismatch' && line.event_id === null && line.type === null)).toBe(true);
    const accepted = await stored(running.store, env, '--status', 'accepted');
    expect(accepted.map((row) => row.event_id).sort()).toEqual(genuine.map((delivery) => delivery.id).sort());
  });
});

describe('EventStore', () => {
  it('cuts a rejected body at a UTF-8 character boundary, so that its first bytes are still text', () => {
    const env = isolatedEnv();
    const store = new EventStore(`${env.HOME}/events.db`);
    try {
      const body = Buffer.from(`${'a'.repeat(REJECTED_BODY_BYTES - 1)}é and more`);
      store.reject({}, { reason: 'signature_mismatch', detail: 'forged' }, { headers: {}, body, receivedAt: Date.now() });
      const [row] = store.events({ limit: 1 });
      expect(row!.body.toString()).toBe('a'.repeat(REJECTED_BODY_BYTES - 1));
      expect(row).toMatchObject({ bodySize: body.length, bodyTruncated: true });
    } finally {
      store.close();
    }
  });
});
