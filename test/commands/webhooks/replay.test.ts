import { join } from 'node:path';
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
});
