import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { verifySignature } from '../../../src/webhooks/signature.js';
import { startListenInProcess, stoppedAfterEachTest } from '../../helpers/listen.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

const SECRET = 'whsec_commands0123456789abcdefghijklmnop';

const { listen, recorder } = stoppedAfterEachTest(SECRET, startListenInProcess);

describe('svc webhooks replay', () => {
  it('replays a stored event to --forward-to: raw body, original headers, re-signed when a secret is given', async () => {
    const running = await listen();
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const sent = JSON.parse((await svcInProcess(['webhooks', 'trigger', 'document.rejected', '--to', `${running.url}/hooks`, '--json'], { env })).stdout)[0];
    await running.waitFor((lines) => lines.length === 1);
    const app = await recorder();
    const replayed = await svcInProcess(['webhooks', 'replay', sent.event.id, '--store', running.store, '--forward-to', app.url, '--json'], { env });
    expect(replayed.code).toBe(0);
    expect(JSON.parse(replayed.stdout)).toMatchObject({ event_id: sent.event.id, status: 200, resigned: true });
    expect(JSON.parse(app.received[0]!.body)).toEqual(sent.event);
    expect(app.received[0]!.headers['service-event']).toBe('document.rejected');
    expect(verifySignature(app.received[0]!.headers['service-signature'] as string, app.received[0]!.body, { secrets: [SECRET] }).ok).toBe(true);

    const unsigned = await svcInProcess(['webhooks', 'replay', sent.event.id, '--store', running.store, '--forward-to', app.url, '--json'], {
      env: isolatedEnv(),
    });
    expect(JSON.parse(unsigned.stdout)).toMatchObject({ status: 200, resigned: false });
    const missing = await svcInProcess(['webhooks', 'replay', 'evt_nothere', '--store', running.store, '--forward-to', app.url], { env });
    expect(missing.code).toBe(ExitCode.notFound);
  });

  it('replay refuses to send an event in clear text to a host that is not loopback, before it looks the event up', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const refused = await svcInProcess(
      ['webhooks', 'replay', 'evt_nothere', '--store', join(env.HOME!, 'events.db'), '--forward-to', 'http://192.0.2.10/hooks', '--json'],
      { env },
    );
    expect(refused.code).toBe(ExitCode.usage);
    expect(JSON.parse(refused.stdout).error).toMatchObject({
      code: 'insecure_forward_url',
      message: 'refusing --forward-to http://192.0.2.10: events would travel unencrypted to a host that is not this machine',
    });
    expect(refused.stderr).toContain('use https://');
  });

  it('replays every event the application did not take, oldest first, where listen forwarded each, stopping at the first refusal', async () => {
    const app = await recorder();
    app.answer = (_delivery, response) => response.writeHead(503).end();
    const running = await listen(['--forward-to', app.url]);
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const sent: string[] = [];
    for (const kind of ['report.created', 'report.completed', 'document.processed']) {
      const trigger = await svcInProcess(['webhooks', 'trigger', kind, '--to', `${running.url}/hooks`, '--json'], { env });
      sent.push(JSON.parse(trigger.stdout)[0].event.id);
      await running.waitFor((lines) => lines.length === sent.length && lines.at(-1)!.forward?.status === 503);
    }
    const replay = (args: string[] = []) => svcInProcess(['webhooks', 'replay', '--not-forwarded', '--store', running.store, '--json', ...args], { env });

    // The application is back, but refuses the second event.
    let answered = 0;
    app.received.length = 0;
    app.answer = (_delivery, response) => response.writeHead(++answered === 2 ? 500 : 200).end();
    const stopped = await replay();
    expect(stopped.code).toBe(ExitCode.verificationFailed);
    expect(JSON.parse(stopped.stdout)).toEqual([
      { event_id: sent[0], url: app.url, status: 200, error: null, duration_ms: expect.any(Number), resigned: true },
      { event_id: sent[1], url: app.url, status: 500, error: null, duration_ms: expect.any(Number), resigned: true },
    ]);
    expect(stopped.stderr).toContain('Stopped at the first event the application did not take');
    expect(app.received.map((delivery) => JSON.parse(delivery.body).id)).toEqual(sent.slice(0, 2));
    for (const delivery of app.received)
      expect(verifySignature(delivery.headers['service-signature'] as string, delivery.body, { secrets: [SECRET] }).ok).toBe(true);

    app.received.length = 0;
    app.answer = (_delivery, response) => response.writeHead(200).end();
    const rest = await replay();
    expect(rest.code).toBe(0);
    expect(JSON.parse(rest.stdout).map((item: { event_id: string }) => item.event_id)).toEqual(sent.slice(1));
    expect(app.received.map((delivery) => JSON.parse(delivery.body).type)).toEqual(['report.completed', 'document.processed']);
    const left = await svcInProcess(['webhooks', 'events', '--not-forwarded', '--store', running.store, '--json'], { env });
    expect(JSON.parse(left.stdout)).toEqual([]);
    const none = await replay();
    expect([none.code, JSON.parse(none.stdout)]).toEqual([0, []]);
    expect(none.stderr).toContain('No events to replay');

    // One event, to where it was forwarded: no --forward-to needed.
    const one = await svcInProcess(['webhooks', 'replay', sent[0]!, '--store', running.store, '--json'], { env });
    expect(JSON.parse(one.stdout)).toMatchObject({ event_id: sent[0], url: app.url, status: 200 });
  });

  it('signs afresh only a stored delivery that verifies with the secret: a row anyone may write is not signed and sent', async () => {
    const app = await recorder();
    app.answer = (_delivery, response) => response.writeHead(503).end();
    const running = await listen(['--forward-to', app.url]);
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    await svcInProcess(['webhooks', 'trigger', 'report.completed', '--to', `${running.url}/hooks`], { env });
    await running.waitFor((lines) => lines.length === 1 && lines[0]!.forward?.status === 503);
    await running.stop();
    const db = new DatabaseSync(running.store);
    db.exec(`UPDATE events SET body = CAST(replace(CAST(body AS TEXT), '"risk_score":27', '"risk_score":99') AS BLOB)`);
    db.close();

    app.received.length = 0;
    const refused = await svcInProcess(['webhooks', 'replay', '--not-forwarded', '--store', running.store, '--json'], { env });
    expect(refused.code).toBe(ExitCode.verificationFailed);
    expect(JSON.parse(refused.stdout).error).toMatchObject({
      code: 'stored_event_not_verified',
      message: expect.stringContaining('does not verify with the webhook secrets given (signature_mismatch'),
    });
    expect(app.received).toEqual([]);
  });

  it('needs an event id or --not-forwarded, and a URL for an event listen did not forward', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const store = join(env.HOME!, 'events.db');
    const neither = await svcInProcess(['webhooks', 'replay', '--store', store, '--json'], { env });
    expect([neither.code, JSON.parse(neither.stdout).error.code]).toEqual([ExitCode.usage, 'replay_what']);
    const both = await svcInProcess(['webhooks', 'replay', 'evt_1', '--not-forwarded', '--store', store, '--json'], { env });
    expect([both.code, JSON.parse(both.stdout).error.code]).toEqual([ExitCode.usage, 'replay_what']);

    const running = await listen();
    const sent = JSON.parse((await svcInProcess(['webhooks', 'trigger', 'report.created', '--to', `${running.url}/hooks`, '--json'], { env })).stdout)[0];
    await running.waitFor((lines) => lines.length === 1);
    const nowhere = await svcInProcess(['webhooks', 'replay', sent.event.id, '--store', running.store, '--json'], { env });
    expect([nowhere.code, JSON.parse(nowhere.stdout).error.code]).toEqual([ExitCode.usage, 'no_forward_url']);
  });
});
