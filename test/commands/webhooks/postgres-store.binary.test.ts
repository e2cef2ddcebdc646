import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleEvent } from '../../../src/webhooks/samples.js';
import { signatureHeader } from '../../../src/webhooks/signature.js';
import { stoppedAfterEachTest } from '../../helpers/listen.js';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { isolatedEnv, runSvc } from '../../helpers/svc.js';

/**
 * `svc webhooks listen --store postgres://…` and the commands that read the store, against a real
 * PostgreSQL started for this file: one store for several listeners, its faults, its schema, and its
 * connection string kept secret.
 */

const SECRET = 'whsec_postgres0123456789abcdefghijklmnop';
const { listen, recorder } = stoppedAfterEachTest(SECRET);

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

describe('a PostgreSQL store shared by listeners, one of them killed', () => {
  it('hands the forward of a listener killed while forwarding to another once its lease expires, and to that one only', async () => {
    const app = await recorder();
    const store = pg.url('lease');
    let holdAnswers = true;
    const held: Array<() => void> = [];
    app.answer = (_delivery, response) => {
      if (holdAnswers) held.push(() => response.writeHead(200).end());
      else response.writeHead(200).end();
    };
    const dying = await listen(['--forward-to', app.url, '--forward-lease', '2s'], env(), store);
    const delivery = signed();
    expect(await post(dying.url, delivery)).toBe(200);
    await app.waitFor((received) => received.length === 1);
    await dying.stop('SIGKILL');
    holdAnswers = false;
    for (const answer of held) answer();

    const survivor = await listen(['--forward-to', app.url, '--forward-lease', '2s'], env(), store);
    await app.waitFor((received) => received.length === 2);
    await survivor.waitFor((lines) => lines.some((line) => line.kind === 'takeover'));
    // snake_case, like every line of listen --json
    expect(survivor.lines.find((line) => line.kind === 'takeover')).toMatchObject({
      event_id: delivery.id,
      type: 'report.completed',
      resource_id: expect.stringMatching(/^rep_/),
      forward: { url: app.url, status: 200, error: null, duration_ms: expect.any(Number) },
    });
    expect(JSON.parse(app.received[1]!.body).id).toBe(delivery.id);
    const listed = await runSvc(['webhooks', 'events', '--json', '--store', store], { env: env() });
    expect(JSON.parse(listed.stdout)[0].forward).toMatchObject({ status: 200 });
  });
});
