import { connect } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import { Pool } from 'undici';
import { describe, expect, it } from 'vitest';
import type { EventType } from '../../src/api/types.js';
import { EVENT_TYPES } from '../../src/webhooks/envelope.js';
import { sampleEvent } from '../../src/webhooks/samples.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { type ListenLine, startListen, stoppedAfterEachTest } from '../helpers/listen.js';
import { eventsOf } from '../helpers/receiver.js';
import { atScale } from '../helpers/scale.js';
import { isolatedEnv } from '../helpers/svc.js';

const SECRET = 'whsec_listener0123456789abcdefghijklmnop';
const FORGER = 'whsec_forger00123456789abcdefghijklmnop';

const { listen, recorder } = stoppedAfterEachTest(SECRET);

interface Delivery {
  id: string;
  kind: 'valid' | 'duplicate' | 'invalid';
  body: string;
  headers: Record<string, string>;
}

function delivery(kind: Delivery['kind'], type: EventType, tamper?: 'secret' | 'body' | 'stale' | 'json'): Delivery {
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
function burst(valid: number, duplicates: number, invalid: number): Delivery[] {
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
async function send(
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

function storedRows(store: string): Array<{ event_id: string | null; status: string; reason: string | null; duplicates: number }> {
  const db = new DatabaseSync(store, { readOnly: true });
  try {
    return db.prepare('SELECT event_id, status, reason, duplicates FROM events').all() as never;
  } finally {
    db.close();
  }
}

describe('svc webhooks listen under load, with a forward target and kill -9', () => {
  it(
    'stores every acknowledged event exactly once, forwards each new event once and nothing forged, across kill -9 and a restart',
    // 17,000 deliveries at full scale (test:scale), verified, stored and forwarded: a minute's work on a loaded machine.
    { timeout: 300_000, tags: ['scale'] },
    async () => {
      const app = await recorder();
      const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
      const first = await listen(['--forward-to', app.url], env);

      // Burst 1: 10,000 deliveries at full scale.
      const duplicatesOne = atScale(600);
      const invalidOne = atScale(400);
      const one = burst(atScale(9000), duplicatesOne, invalidOne);
      const statuses = await send(`${first.url}/hooks`, one);
      one.forEach((item, index) => expect(statuses[index], `${item.kind} ${item.id}`).toBe(item.kind === 'invalid' ? 400 : 200));
      const validOne = new Set(one.filter((item) => item.kind === 'valid').map((item) => item.id));
      await app.waitFor((received) => received.length >= validOne.size);

      let rows = storedRows(first.store);
      const accepted = rows.filter((row) => row.status === 'accepted');
      expect(accepted).toHaveLength(validOne.size);
      expect(new Set(accepted.map((row) => row.event_id))).toEqual(validOne);
      expect(accepted.reduce((sum, row) => sum + row.duplicates, 0)).toBe(duplicatesOne);
      const rejected = rows.filter((row) => row.status === 'rejected');
      expect(rejected).toHaveLength(invalidOne);
      expect(
        Object.fromEntries(
          ['signature_mismatch', 'timestamp_too_old', 'body_not_json'].map((reason) => [reason, rejected.filter((row) => row.reason === reason).length]),
        ),
      ).toEqual({
        // The forgeries take turns: another secret, another body, an old timestamp, a body cut short.
        signature_mismatch: invalidOne / 2,
        timestamp_too_old: invalidOne / 4,
        body_not_json: invalidOne / 4,
      });
      const forwardedOne = eventsOf(app.received).map((event) => event.id);
      expect(forwardedOne).toHaveLength(validOne.size);
      expect(new Set(forwardedOne)).toEqual(validOne);
      // Raw body and original headers.
      const sample = one.find((item) => item.id === forwardedOne[0] && item.kind === 'valid')!;
      expect(app.received[0]!.body).toBe(sample.body);
      expect(app.received[0]!.headers).toMatchObject({
        'service-signature': sample.headers['service-signature'],
        'service-event': sample.headers['service-event'],
      });
      await first.waitFor((lines) => lines.filter((line) => line.event === 'delivery').length === one.length);
      expect(first.lines.filter((line) => line.result === 'accepted').every((line) => line.forward?.status === 200)).toBe(true);

      // Burst 2: the listener is killed with SIGKILL after a third of its deliveries are acknowledged, mid-burst.
      const two = burst(atScale(3000), atScale(300), atScale(200));
      const killAt = atScale(1000);
      const acknowledged = new Set<string>();
      // The deliveries cut short may all be answered before the kill's exit is seen.
      const exited = new Promise((resolve) => first.process.once('exit', resolve));
      const killed = send(`${first.url}/hooks`, two, {
        onAnswer: (count) => {
          if (count === killAt) first.process.kill('SIGKILL');
        },
      });
      const before = await killed;
      await exited;
      two.forEach((item, index) => {
        if (before[index] === 200) acknowledged.add(item.id);
      });
      expect(first.process.signalCode).toBe('SIGKILL');
      expect(before.filter((status) => status === 200).length).toBeGreaterThanOrEqual(killAt);
      expect(before.filter((status) => status === null).length).toBeGreaterThan(0);
      rows = storedRows(first.store);
      const storedIds = rows.filter((row) => row.status === 'accepted').map((row) => row.event_id!);
      for (const id of acknowledged)
        expect(
          storedIds.filter((stored) => stored === id),
          id,
        ).toHaveLength(1);

      // Restart on the same store; the sender retries the whole burst, as part 6's retries would.
      const second = await listen(['--forward-to', app.url], env, first.store);
      const after = await send(`${second.url}/hooks`, two);
      two.forEach((item, index) => expect(after[index], `${item.kind} ${item.id}`).toBe(item.kind === 'invalid' ? 400 : 200));
      const validTwo = new Set(two.filter((item) => item.kind === 'valid').map((item) => item.id));
      await second.waitFor((lines) => lines.filter((line) => line.event === 'delivery').length === two.length);
      await new Promise((resolve) => setTimeout(resolve, 200));

      rows = storedRows(first.store);
      const finalIds = rows.filter((row) => row.status === 'accepted').map((row) => row.event_id!);
      expect(finalIds).toHaveLength(validOne.size + validTwo.size);
      expect(new Set(finalIds)).toEqual(new Set([...validOne, ...validTwo]));
      const forwarded = eventsOf(app.received).map((event) => event.id);
      expect(new Set(forwarded).size, 'no event forwarded twice').toBe(forwarded.length);
      const invalidIds = new Set([...one, ...two].filter((item) => item.kind === 'invalid').map((item) => item.id));
      expect(
        forwarded.filter((id) => invalidIds.has(id)),
        'no rejected event forwarded',
      ).toEqual([]);
      const redelivered = second.lines.filter((line: ListenLine) => line.result === 'duplicate').map((line) => line.event_id);
      for (const id of acknowledged) expect(redelivered).toContain(id);
    },
  );
});

/** Writes raw bytes to the listener and resolves with what comes back before the connection closes (or after `waitMs`). */
function raw(url: string, bytes: string | Buffer, waitMs = 3000): Promise<string> {
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

async function post(url: string, item: Delivery): Promise<{ status: number }> {
  const response = await fetch(`${url}/hooks`, { method: 'POST', headers: item.headers, body: item.body });
  await response.arrayBuffer();
  return { status: response.status };
}

describe('svc webhooks listen against bad input', () => {
  it('answers 413 to a body over --max-body without reading it, declared or chunked, and keeps serving', async () => {
    const running = await listen(['--max-body', '2048']);
    const declared = await raw(running.url, `POST /hooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{"id":`);
    expect(declared).toMatch(/^HTTP\/1\.1 413 /);
    expect(declared).toMatch(/connection: close/i);
    const chunk = 'a'.repeat(1500);
    const chunked = await raw(
      running.url,
      `POST /hooks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${(1500).toString(16)}\r\n${chunk}\r\n${(1500).toString(16)}\r\n${chunk}\r\n`,
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 413 /);
    expect((await post(running.url, delivery('valid', 'report.created'))).status).toBe(200);
    await running.waitFor((lines) => lines.filter((line) => line.event === 'refused' && line.status === 413).length === 2);
  });

  it('answers 431 to oversized headers, 400 to junk, 405 to other methods, and keeps serving', async () => {
    const running = await listen();
    expect(await raw(running.url, `POST /hooks HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431 /);
    expect(await raw(running.url, Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, 0x0d, 0x0a, 0x0d, 0x0a]))).toMatch(
      /^HTTP\/1\.1 400 /,
    );
    expect(await raw(running.url, 'hello there\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect((await fetch(`${running.url}/hooks`)).status).toBe(405);
    expect((await post(running.url, delivery('valid', 'report.created'))).status).toBe(200);
  });

  it('answers others while a client sends its headers slowly, and cuts that client off', async () => {
    const running = await listen();
    const { hostname, port } = new URL(running.url);
    const slow = connect({ host: hostname, port: Number(port) });
    slow.on('error', () => undefined);
    // Flowing, so that the server's FIN is read and the socket closes.
    slow.resume();
    slow.write('POST /hooks HTTP/1.1\r\nHost: x\r\n');
    const dripping = setInterval(() => slow.write('X-Slow: 1\r\n'), 500);
    const closed = new Promise<void>((resolve) => slow.once('close', () => resolve()));
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => post(running.url, delivery('valid', 'report.completed'))));
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      // Still dripping: only the listener's header timeout ends this connection.
      await closed;
      expect((await post(running.url, delivery('valid', 'report.completed'))).status).toBe(200);
    } finally {
      clearInterval(dripping);
      slow.destroy();
    }
  });

  it('answers 400 with the reason to a delivery that fails verification, keeps it as rejected, and forwards nothing', async () => {
    const app = await recorder();
    const running = await listen(['--forward-to', app.url]);
    const forged = delivery('invalid', 'report.failed', 'secret');
    const response = await fetch(`${running.url}/hooks`, { method: 'POST', headers: forged.headers, body: forged.body });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'signature_mismatch' } });
    await running.waitFor((lines) => lines.some((line) => line.result === 'rejected'));
    expect(running.lines[0]).toMatchObject({
      event: 'delivery',
      result: 'rejected',
      reason: 'signature_mismatch',
      event_id: forged.id,
      status: 400,
      forward: null,
    });
    expect(storedRows(running.store)).toEqual([{ event_id: forged.id, status: 'rejected', reason: 'signature_mismatch', duplicates: 0 }]);
    expect(app.received).toEqual([]);
  });

  it('answers 503 and acknowledges nothing while another writer holds the store, then takes the retry once', async () => {
    const app = await recorder();
    const running = await listen(['--forward-to', app.url]);
    const event = delivery('valid', 'report.completed');
    const other = new DatabaseSync(running.store);
    other.exec('BEGIN IMMEDIATE');
    try {
      const refused = await fetch(`${running.url}/hooks`, { method: 'POST', headers: event.headers, body: event.body });
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({ error: { code: 'store_failed' } });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await running.waitFor((lines) => lines.some((line) => line.result === 'store_failed'));
    expect(running.lines[0]).toMatchObject({ event: 'delivery', result: 'store_failed', event_id: event.id, status: 503, forward: null });
    const retried = await fetch(`${running.url}/hooks`, { method: 'POST', headers: event.headers, body: event.body });
    expect(retried.status).toBe(200);
    await running.waitFor((lines) => lines.some((line) => line.result === 'accepted' && line.forward !== null));
    expect(storedRows(running.store)).toEqual([{ event_id: event.id, status: 'accepted', reason: null, duplicates: 0 }]);
    expect(eventsOf(app.received).map((received) => received.id)).toEqual([event.id]);
  });

  it("warns when a forward's outcome cannot be recorded, another writer holding the store meanwhile, and leaves the forward shown as unfinished", async () => {
    const app = await recorder();
    const running = await listen(['--forward-to', app.url]);
    const event = delivery('valid', 'report.completed');
    const other = new DatabaseSync(running.store);
    try {
      // The application takes the store's write lock before it answers: the event is stored, its forward's outcome cannot be.
      app.answer = (_received, response) => {
        other.exec('BEGIN IMMEDIATE');
        response.writeHead(200).end();
      };
      const answer = await fetch(`${running.url}/hooks`, { method: 'POST', headers: event.headers, body: event.body });
      expect(answer.status).toBe(200);
      await running.waitFor(() => running.stderr().includes('could not record'));
    } finally {
      if (other.isTransaction) other.exec('ROLLBACK');
      other.close();
    }
    expect(running.stderr()).toContain(
      `Warning: could not record in the event store what became of forwarding ${event.id} to ${app.url} (200): database is locked; the store still shows that forward as unfinished`,
    );
    await running.waitFor((lines) => lines.some((line) => line.result === 'accepted'));
    expect(running.lines).toEqual([
      expect.objectContaining({ event: 'delivery', result: 'accepted', event_id: event.id, forward: expect.objectContaining({ status: 200 }) }),
    ]);
    const db = new DatabaseSync(running.store, { readOnly: true });
    try {
      expect(db.prepare('SELECT forward_url, forward_status, forwarded_at FROM events').all()).toEqual([
        { forward_url: app.url, forward_status: null, forwarded_at: null },
      ]);
    } finally {
      db.close();
    }
  });

  it('on SIGTERM answers the delivery under way, closing its connection, so that a busy sender does not keep it running', async () => {
    const running = await listen(['--delay', '2s']);
    const item = delivery('valid', 'report.completed');
    const headers = Object.entries(item.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const answered = raw(
      running.url,
      `POST /hooks HTTP/1.1\r\nHost: x\r\n${headers}content-length: ${Buffer.byteLength(item.body)}\r\n\r\n${item.body}`,
      20_000,
    );
    // Stored, then held back by --delay: the delivery is under way.
    while (storedRows(running.store).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const exited = running.stop('SIGTERM');
    const answer = await answered;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(await exited).toBe(0);
    expect(storedRows(running.store)).toEqual([{ event_id: item.id, status: 'accepted', reason: null, duplicates: 0 }]);
  });

  it('refuses plain HTTP on a non-loopback address', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    await expect(startListen(['--host', '0.0.0.0'], env)).rejects.toThrow(/exited 2[\s\S]*--cert and --key/);
  });

  it('refuses at startup to forward events in clear text to a host that is not loopback; https and loopback http are taken', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    // Refused before listening, so nothing is ever sent there.
    await expect(listen(['--forward-to', 'http://192.0.2.10:8080/hooks'], env)).rejects.toThrow(
      /exited 2[\s\S]*refusing --forward-to http:\/\/192\.0\.2\.10:8080: events would travel unencrypted[\s\S]*use https:\/\//,
    );
    await expect(listen(['--forward-to', 'ftp://127.0.0.1/hooks'], env)).rejects.toThrow(/exited 2[\s\S]*--forward-to uses ftp:/);
    await expect(listen(['--forward-to', 'hooks'], env)).rejects.toThrow(/exited 2[\s\S]*--forward-to hooks is not a URL/);
    for (const url of ['https://192.0.2.10/hooks', 'http://localhost:3000/hooks', 'http://127.0.0.2:3000/hooks', 'http://[::1]:3000/hooks']) {
      const running = await listen(['--forward-to', url], env);
      await running.stop();
    }
  });
});
