/**
 * A PostgreSQL store whose schema another role made first: that role could read every event and
 * write rows a takeover would forward. The listener refuses a schema or table it does not own unless
 * the connection string names the owner trusted; a forward taken over is checked as a new delivery
 * (its URL the listener's own --forward-to, its stored body verified), whatever a row says. A real
 * PostgreSQL, the listener in the test's process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { sampleEvent } from '../../../src/webhooks/samples.js';
import { signatureHeader } from '../../../src/webhooks/signature.js';
import { startListenInProcess, stoppedAfterEachTest } from '../../helpers/listen.js';
import { manualClock } from '../../helpers/clock.js';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

const SECRET = 'whsec_ownership0123456789abcdefghijklmno';
const HOUR = 3_600_000;
const LISTENER_PASSWORD = 'listener-password-0123456789';
const { listen, recorder, stopAfterTest } = stoppedAfterEachTest(SECRET, startListenInProcess);

let pg: TestPostgres;
beforeAll(() => {
  pg = startPostgres();
  // The listener's role, and another that may create schemas in the same database.
  pg.psql(`CREATE ROLE listener LOGIN PASSWORD '${LISTENER_PASSWORD}'; CREATE ROLE intruder; GRANT CREATE ON DATABASE postgres TO listener, intruder`);
});
afterAll(() => pg?.destroy());

/** The store as the listener's role reaches it. */
const storeOf = (schema: string, extra = '') =>
  `postgres://listener:${LISTENER_PASSWORD}@localhost/postgres?host=${encodeURIComponent(pg.socketDirectory)}&schema=${schema}${extra}`;
const env = () => isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });

describe('a schema another role owns', () => {
  it('is refused (exit 10) before anything is read or written, and taken when the connection string names its owner trusted', async () => {
    pg.psql('SET ROLE intruder; CREATE SCHEMA made_first; GRANT USAGE, CREATE ON SCHEMA made_first TO listener');
    const refused = await svcInProcess(['webhooks', 'events', '--json'], { env: { ...env(), SVC_WEBHOOK_STORE: storeOf('made_first') } });
    expect(refused.code).toBe(ExitCode.config);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'store_not_owned' });
    expect(refused.stderr).toContain('the schema made_first is owned by the role intruder');
    expect(refused.stderr).toContain('?owner=intruder');
    expect(refused.stdout + refused.stderr).not.toContain(LISTENER_PASSWORD);
    expect(pg.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'made_first'")).toBe('0');

    const trusted = await svcInProcess(['webhooks', 'events', '--json'], { env: { ...env(), SVC_WEBHOOK_STORE: storeOf('made_first', '&owner=intruder') } });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(JSON.parse(trusted.stdout)).toEqual([]);
  });

  it('stops `webhooks listen` (exit 10) before it listens, and the listener runs when the connection string names the owner trusted', async () => {
    pg.psql('SET ROLE intruder; CREATE SCHEMA listened_first; GRANT USAGE, CREATE ON SCHEMA listened_first TO listener');
    const refused = await svcInProcess(['webhooks', 'listen', '--port', '0', '--store', storeOf('listened_first')], { env: env() });
    expect(refused.code).toBe(ExitCode.config);
    expect(refused.stderr).toContain('the schema listened_first is owned by the role intruder');
    expect(refused.stderr).not.toContain('Listening on');
    expect(pg.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'listened_first'")).toBe('0');

    const trusted = await listen([], env(), storeOf('listened_first', '&owner=intruder'));
    expect(trusted.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("a table another role made in the listener's own schema is refused too", async () => {
    pg.psql('CREATE SCHEMA own_schema AUTHORIZATION listener; GRANT CREATE, USAGE ON SCHEMA own_schema TO intruder');
    pg.psql('SET ROLE intruder; CREATE TABLE own_schema.events (seq bigint)');
    const refused = await svcInProcess(['webhooks', 'events', '--json'], { env: { ...env(), SVC_WEBHOOK_STORE: storeOf('own_schema') } });
    expect(refused.code).toBe(ExitCode.config);
    expect(refused.stderr).toContain('the table own_schema.events is owned by the role intruder');
  });
});

describe('a forward taken over', () => {
  it("is checked as a new delivery is: only to the listener's --forward-to, and only a stored body that verifies, however old", async () => {
    const app = await recorder();
    const attacker = await recorder();
    const store = storeOf('takeovers');
    // The schema made by a first listener, as the listener's role.
    const first = await listen(['--forward-to', app.url], env(), store);
    await first.stop();
    // Forwards left unfinished by a replica that died an hour ago, as whoever writes a row chooses: a genuine event
    // to another URL, bodies unsigned or signed with another secret, headers that are no object, a signed body
    // under another event's id, and a genuine event signed an hour ago (past --tolerance).
    const anHourAgo = Math.floor(Date.now() / 1000) - 3600;
    const rows = {
      elsewhere: row(`${attacker.url}/steal`, (body) => ({ 'service-signature': signatureHeader(SECRET, body, anHourAgo) })),
      forged: row(app.url, () => ({ 'content-type': 'application/json' })),
      otherSecret: row(app.url, (body) => ({ 'service-signature': signatureHeader('whsec_notthelistenersone0123456789abcdef', body) })),
      unreadableHeaders: row(app.url, () => null),
      anotherEvent: row(app.url, (body) => ({ 'service-signature': signatureHeader(SECRET, body) }), 'evt_copyofanotherevent0000'),
      genuine: row(app.url, (body) => ({ 'service-signature': signatureHeader(SECRET, body, anHourAgo), 'x-kept': 'yes' })),
    };
    pg.psql(`INSERT INTO takeovers.events (event_id, type, status, received_at, headers, body, body_size, forward_url, claimed_by, lease_until)
      VALUES ${Object.values(rows)
        .map((made) => made.values)
        .join(', ')}`);
    // It takes over only once the database has answered it for a whole lease: an hour, on its clock, not waited out here.
    const clock = manualClock();
    const survivor = await startListenInProcess(['--forward-to', app.url, '--forward-lease', '1h'], env(), store, { clock });
    stopAfterTest(() => survivor.stop());
    clock.advance(HOUR);
    await survivor.waitFor((lines) => lines.filter((line) => line.kind === 'takeover').length === 6);
    const unfinished = () => pg.psql('SELECT count(*) FROM takeovers.events WHERE forwarded_at IS NULL');
    while (unfinished() !== '0') await new Promise((resolve) => setTimeout(resolve, 20));

    expect(attacker.received).toEqual([]);
    expect(app.received.map((received) => received.body)).toEqual([rows.genuine.body]);
    expect(app.received[0]!.headers['x-kept']).toBe('yes');
    const takeovers = new Map(survivor.lines.filter((line) => line.kind === 'takeover').map((line) => [line.event_id, line]));
    expect(takeovers.get(rows.genuine.id)).toMatchObject({ forward: { url: app.url, status: 200 }, detail: null });
    const refusals: Record<string, string> = {
      elsewhere: `not forwarded on takeover: its row names ${attacker.url}/steal, not this listener's --forward-to ${app.url}`,
      forged: "not forwarded on takeover: its stored delivery does not verify with this listener's secrets (missing_header",
      otherSecret: "not forwarded on takeover: its stored delivery does not verify with this listener's secrets (signature_mismatch",
      unreadableHeaders: "not forwarded on takeover: its stored delivery does not verify with this listener's secrets (missing_header",
      anotherEvent: 'not forwarded on takeover: its stored delivery is the event evt_',
    };
    for (const [name, detail] of Object.entries(refusals)) {
      const id = rows[name as keyof typeof rows].id;
      expect(takeovers.get(id)).toMatchObject({ forward: null, detail: expect.stringContaining(detail) });
      // Recorded as not forwarded, with the reason, so that no replica takes it over again.
      expect(pg.psql(`SELECT forward_status IS NULL, forward_error FROM takeovers.events WHERE event_id = '${id}'`)).toBe(`t|${takeovers.get(id)!.detail}`);
    }
    const listed = await svcInProcess(['webhooks', 'events', '--not-forwarded', '--json'], { env: { ...env(), SVC_WEBHOOK_STORE: store } });
    expect((JSON.parse(listed.stdout) as Array<{ event_id: string }>).map((event) => event.event_id).sort()).toEqual(
      Object.keys(refusals)
        .map((name) => rows[name as keyof typeof rows].id)
        .sort(),
    );
  });
});

/** A row of an accepted event whose forward to `url` a replica left unfinished, with the headers `headersOf` gives for its body. */
function row(url: string, headersOf: (body: string) => object | null, id?: string): { id: string; body: string; values: string } {
  const event = sampleEvent('report.completed');
  const body = JSON.stringify(event);
  const quoted = (text: string) => `'${text.replace(/'/g, "''")}'`;
  return {
    id: id ?? event.id,
    body,
    values: `(${quoted(id ?? event.id)}, 'report.completed', 'accepted', 0, ${quoted(JSON.stringify(headersOf(body)))}, convert_to(${quoted(body)}, 'UTF8'), ${Buffer.byteLength(body)}, ${quoted(url)}, 'dead-replica', now() - interval '1 hour')`,
  };
}
