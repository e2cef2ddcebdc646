/**
 * A PostgreSQL store whose schema another role made first: that role could read every event and
 * write rows a takeover would forward. The listener refuses a schema or table it does not own unless
 * the connection string names the owner trusted; a forward taken over goes only to the listener's own
 * --forward-to, whatever a row names. A real PostgreSQL, the real binary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { sampleEvent } from '../../src/webhooks/samples.js';
import { stoppedAfterEachTest } from '../helpers/listen.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

const SECRET = 'whsec_ownership0123456789abcdefghijklmno';
const LISTENER_PASSWORD = 'listener-password-0123456789';
const { listen, recorder } = stoppedAfterEachTest(SECRET);

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
    const refused = await runSvc(['webhooks', 'events', '--json'], { env: { ...env(), SVC_WEBHOOK_STORE: storeOf('made_first') } });
    expect(refused.code).toBe(ExitCode.config);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'store_not_owned' });
    expect(refused.stderr).toContain('the schema made_first is owned by the role intruder');
    expect(refused.stderr).toContain('?owner=intruder');
    expect(refused.stdout + refused.stderr).not.toContain(LISTENER_PASSWORD);
    expect(pg.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'made_first'")).toBe('0');

    const trusted = await runSvc(['webhooks', 'events', '--json'], { env: { ...env(), SVC_WEBHOOK_STORE: storeOf('made_first', '&owner=intruder') } });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(JSON.parse(trusted.stdout)).toEqual([]);
  });

  it("a table another role made in the listener's own schema is refused too", async () => {
    pg.psql('CREATE SCHEMA own_schema AUTHORIZATION listener; GRANT CREATE, USAGE ON SCHEMA own_schema TO intruder');
    pg.psql('SET ROLE intruder; CREATE TABLE own_schema.events (seq bigint)');
    const refused = await runSvc(['webhooks', 'events', '--json'], { env: { ...env(), SVC_WEBHOOK_STORE: storeOf('own_schema') } });
    expect(refused.code).toBe(ExitCode.config);
    expect(refused.stderr).toContain('the table own_schema.events is owned by the role intruder');
  });
});

describe('a forward taken over', () => {
  it("goes only to the listener's --forward-to: a row naming another URL is never forwarded there", async () => {
    const app = await recorder();
    const elsewhere = await recorder();
    const store = storeOf('takeovers');
    // The schema made by a first listener, as the listener's role.
    const first = await listen(['--forward-to', app.url], env(), store);
    await first.stop();
    // Two forwards left unfinished by a replica that died: one to another URL, written first, then one to the application.
    const row = (url: string) => {
      const event = sampleEvent('report.completed');
      const body = JSON.stringify(event).replace(/'/g, "''");
      return `('${event.id}', 'report.completed', 'accepted', 0, '{}', convert_to('${body}', 'UTF8'), ${Buffer.byteLength(body)}, '${url}', 'dead-replica', now() - interval '1 hour')`;
    };
    pg.psql(`INSERT INTO takeovers.events (event_id, type, status, received_at, headers, body, body_size, forward_url, claimed_by, lease_until)
      VALUES ${row(`${elsewhere.url}/steal`)}, ${row(app.url)}`);
    const survivor = await listen(['--forward-to', app.url, '--forward-lease', '1s'], env(), store);
    await survivor.waitFor((lines) => lines.some((line) => line.event === 'takeover'));
    expect(app.received).toHaveLength(1);
    expect(elsewhere.received).toEqual([]);
    expect(survivor.lines.filter((line) => line.event === 'takeover').map((line) => line.forward?.url)).toEqual([app.url]);
    // Left unfinished, for `webhooks events` to show and a person to judge.
    expect(pg.psql(`SELECT count(*) FROM takeovers.events WHERE forward_url = '${elsewhere.url}/steal' AND forwarded_at IS NULL`)).toBe('1');
  });
});
