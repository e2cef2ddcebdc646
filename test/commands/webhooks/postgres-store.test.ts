/**
 * `svc webhooks listen --store postgres://…` and the commands that read the store, against a real
 * PostgreSQL started for this file: one store for several listeners, its faults, its schema, and its
 * connection string kept secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { sampleEvent } from '../../../src/webhooks/samples.js';
import { signatureHeader } from '../../../src/webhooks/signature.js';
import { HANG_MS } from '../../helpers/hang.js';
import { startListenInProcess, stoppedAfterEachTest } from '../../helpers/listen.js';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

const SECRET = 'whsec_postgres0123456789abcdefghijklmnop';
const { listen, recorder, stopAfterTest } = stoppedAfterEachTest(SECRET, startListenInProcess);

let pg: TestPostgres;
beforeAll(() => {
  pg = startPostgres();
});
afterAll(() => pg?.destroy());

function signed(id = sampleEvent('report.completed').id): { id: string; body: string; headers: Record<string, string> } {
  const event = { ...sampleEvent('report.completed'), id };
  const body = JSON.stringify(event);
  return { id, body, headers: { 'content-type': 'application/json', 'service-event': event.type, 'service-signature': signatureHeader(SECRET, body) } };
}

async function post(url: string, delivery: { body: string; headers: Record<string, string> }): Promise<number> {
  const response = await fetch(`${url}/hooks`, { method: 'POST', headers: delivery.headers, body: delivery.body });
  await response.arrayBuffer();
  return response.status;
}

const env = (extra: Record<string, string> = {}) => isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET, ...extra });

describe('a PostgreSQL store shared by listeners', () => {
  it('stores an event once whichever listener gets which delivery, forwards it once, and every command sees it', async () => {
    const app = await recorder();
    const store = pg.url('shared');
    const [one, two] = [await listen(['--forward-to', app.url], env(), store), await listen(['--forward-to', app.url], env(), store)];
    const delivery = signed();
    expect(await post(one.url, delivery)).toBe(200);
    expect(await post(two.url, delivery)).toBe(200);
    await two.waitFor((lines) => lines.some((line) => line.result === 'duplicate'));
    await one.waitFor((lines) => lines.some((line) => line.result === 'accepted' && line.forward?.status === 200));
    expect(app.received.map((received) => JSON.parse(received.body).id)).toEqual([delivery.id]);

    const listed = await svcInProcess(['webhooks', 'events', '--json'], { env: env({ SVC_WEBHOOK_STORE: store }) });
    expect(listed.code, listed.stderr).toBe(0);
    const [event] = JSON.parse(listed.stdout);
    expect(event).toMatchObject({ event_id: delivery.id, status: 'accepted', duplicates: 1 });
    expect(event.forward).toMatchObject({ status: 200 });

    const replayed = await svcInProcess(['webhooks', 'replay', delivery.id, '--forward-to', app.url, '--json'], { env: env({ SVC_WEBHOOK_STORE: store }) });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(app.received).toHaveLength(2);

    const pruned = await svcInProcess(['webhooks', 'prune', '--before', '25h', '--json'], { env: env({ SVC_WEBHOOK_STORE: store }) });
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(JSON.parse(pruned.stdout)).toMatchObject({ deleted: 0 });
  });

  it('replays what two listeners could not forward, oldest first across both, from any machine', async () => {
    const app = await recorder();
    app.answer = (_delivery, response) => response.writeHead(503).end();
    const store = pg.url('backlog');
    const [one, two] = [await listen(['--forward-to', app.url], env(), store), await listen(['--forward-to', app.url], env(), store)];
    const sent: string[] = [];
    for (const [index, listener] of [one, two, one, two].entries()) {
      const delivery = signed();
      expect(await post(listener.url, delivery)).toBe(200);
      sent.push(delivery.id);
      await listener.waitFor((lines) => lines.filter((line) => line.forward?.status === 503).length === Math.floor(index / 2) + 1);
    }
    app.received.length = 0;
    app.answer = (_delivery, response) => response.writeHead(200).end();
    const replayed = await svcInProcess(['webhooks', 'replay', '--not-forwarded', '--json'], { env: env({ SVC_WEBHOOK_STORE: store }) });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(JSON.parse(replayed.stdout).map((item: { event_id: string }) => item.event_id)).toEqual(sent);
    expect(app.received.map((received) => JSON.parse(received.body).id)).toEqual(sent);
  });

  it('answers 503 while PostgreSQL is down, says so once, and stores again when it is back', async () => {
    const store = pg.url('outage');
    const listener = await listen([], env(), store);
    expect(await post(listener.url, signed())).toBe(200);
    pg.stop();
    try {
      const during = signed();
      const refused = await fetch(`${listener.url}/hooks`, { method: 'POST', headers: during.headers, body: during.body });
      expect(refused.status).toBe(503);
      // What the store said is the operator's to read (stderr), not the sender's.
      expect(await refused.json()).toEqual({
        error: { code: 'store_failed', message: 'the event store is unavailable: the delivery was not stored; send it again' },
      });
      expect(await post(listener.url, signed())).toBe(503);
    } finally {
      pg.start();
    }
    const after = signed();
    const deadline = Date.now() + HANG_MS;
    let status = await post(listener.url, after);
    while (status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = await post(listener.url, after);
    }
    expect(status).toBe(200);
    await listener.waitFor(() => listener.stderr().includes('answers again'));
    expect(listener.stderr().match(/The event store does not answer/g)).toHaveLength(1);
    const listed = await svcInProcess(['webhooks', 'events', '--json', '--store', store], { env: env() });
    expect(JSON.parse(listed.stdout).map((event: { event_id: string }) => event.event_id)).toContain(after.id);
  });
});

describe("the store's schema", () => {
  it('is created in the schema the connection string names, with its version', async () => {
    const listed = await svcInProcess(['webhooks', 'events', '--store', pg.url('chosen_name')], { env: env() });
    expect(listed.code, listed.stderr).toBe(0);
    expect(pg.psql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'chosen_name' ORDER BY 1")).toBe('events\nschema_version');
    expect(pg.psql('SELECT version FROM chosen_name.schema_version')).toBe('1');
  });

  it('of a newer svc is refused, clearly, and left untouched', async () => {
    expect((await svcInProcess(['webhooks', 'events', '--store', pg.url('newer')], { env: env() })).code).toBe(0);
    pg.psql('UPDATE newer.schema_version SET version = 7');
    // Refused before it listens: it ends with its exit code and what it said on stderr.
    const refused = listen([], env(), pg.url('newer'));
    await expect(refused).rejects.toThrow(new RegExp(`exited ${ExitCode.config}: `));
    await expect(refused).rejects.toThrow(/schema newer is at version 7, newer than this svc knows \(1\)/);
    await expect(refused).rejects.toThrow(/upgrade svc/);
    expect(pg.psql('SELECT version FROM newer.schema_version')).toBe('7');
  });
});

describe('the least privileges docs/webhooks.md documents', () => {
  it('are enough for a listener, `events`, `replay` and `prune` once the schema is there', async () => {
    expect((await svcInProcess(['webhooks', 'events', '--store', pg.url('granted')], { env: env() })).code).toBe(0);
    pg.psql(`CREATE ROLE svc_listener LOGIN PASSWORD 'listener_password_1';
      GRANT USAGE ON SCHEMA granted TO svc_listener;
      GRANT SELECT ON granted.schema_version TO svc_listener;
      GRANT SELECT, INSERT, UPDATE, DELETE ON granted.events TO svc_listener;`);
    // The schema is the owner's (svc here), which the replicas' connection string names trusted.
    const store = `${pg.url('granted').replace(`svc:${pg.password}@`, 'svc_listener:listener_password_1@')}&owner=svc`;
    const app = await recorder();
    const listener = await listen(['--forward-to', app.url], env(), store);
    const delivery = signed();
    const forged = { ...signed(), headers: { ...signed().headers, 'service-signature': 't=1,v1=00' } };
    expect(await post(listener.url, delivery)).toBe(200);
    expect(await post(listener.url, forged)).toBe(400);
    await listener.waitFor((lines) => lines.some((line) => line.forward?.status === 200));
    // A rejected delivery is answered at once, what is kept of it written after.
    const deadline = Date.now() + HANG_MS;
    while (pg.psql('SELECT count(*) FROM granted.events') !== '2' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const listed = await svcInProcess(['webhooks', 'events', '--json'], { env: env({ SVC_WEBHOOK_STORE: store }) });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toHaveLength(2);
    const replayed = await svcInProcess(['webhooks', 'replay', delivery.id, '--forward-to', app.url], { env: env({ SVC_WEBHOOK_STORE: store }) });
    expect(replayed.code, replayed.stderr).toBe(0);
    const pruned = await svcInProcess(['webhooks', 'prune', '--before', '25h'], { env: env({ SVC_WEBHOOK_STORE: store }) });
    expect(pruned.code, pruned.stderr).toBe(0);
  });
});

describe('the connection string is a secret', () => {
  it('is never printed, warned of on the command line, and redacted when saved in the profile', async () => {
    const home = env();
    const onCommandLine = await svcInProcess(['webhooks', 'events', '--store', pg.url('secret')], { env: home });
    expect(onCommandLine.stderr).toMatch(/a password given in --store is visible to other local users in the process list/);

    const wrong = pg.url('secret').replace(pg.password, 'wrong_password_123');
    const refused = await svcInProcess(['webhooks', 'events', '--json'], { env: { ...home, SVC_WEBHOOK_STORE: wrong } });
    expect(refused.code).toBe(ExitCode.config);
    expect(JSON.parse(refused.stdout).error.message).toMatch(/password authentication failed/);
    expect(refused.stdout + refused.stderr).not.toContain('wrong_password_123');

    const saved = await svcInProcess(['config', 'set', 'webhook_store'], { env: home, input: pg.url('secret') });
    expect(saved.code, saved.stderr).toBe(0);
    const shown = await svcInProcess(['config', 'get', 'webhook_store'], { env: home });
    expect(shown.stdout).toContain('postgres://svc:…@localhost/postgres?host=');
    const fromProfile = await svcInProcess(['webhooks', 'events', '--json'], { env: home });
    expect(fromProfile.code, fromProfile.stderr).toBe(0);

    const listening = await listen(['--forward-to', 'http://127.0.0.1:9/hooks'], { ...home }, pg.url('secret'));
    stopAfterTest(() => listening.stop());
    for (const output of [onCommandLine, refused, saved, shown, fromProfile].map((result) => result.stdout + result.stderr))
      expect(output).not.toContain(pg.password);
    expect(listening.stderr()).not.toContain(pg.password);
  });
});
