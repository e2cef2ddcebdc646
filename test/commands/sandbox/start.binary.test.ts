import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Applicant, Report } from '../../../src/api/types.js';
import { eventsOf, type Receiver, startReceiver } from '../../helpers/receiver.js';
import { type RunningSandbox, startSandboxProcess } from '../../helpers/sandbox.js';
import { isolatedEnv, runSvc } from '../../helpers/svc.js';

/**
 * What only `svc sandbox start` as a process of its own shows of its webhooks: it exits 0 on SIGTERM,
 * and what it was sending goes on at its next start (the rest: test/sandbox/webhooks.test.ts, in the test's process).
 */

const SECRET = 'whsec_sandboxtestsecret0123456789abcdef';
const PROFILE = { given_names: 'Anna Maria', surname: 'Eriksson', date_of_birth: '1984-08-12', nationality: 'SE' };

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  cleanups.push(() => started.close());
  return started;
}

async function createReport(sandbox: RunningSandbox): Promise<Report> {
  const applicant = (await (
    await sandbox.fetch('/v1/applicants', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(PROFILE) })
  ).json()) as Applicant;
  const response = await sandbox.fetch('/v1/reports', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ applicant_id: applicant.id, destination: 'DE', visa_type: 'tourist', purpose: 'holiday' }),
  });
  return (await response.json()) as Report;
}

describe('svc sandbox start, stopped and started again', () => {
  it('loses no delivery across a restart and sends nothing twice once it was answered 2xx', async () => {
    const subscriber = await receiver();
    subscriber.answer = (_delivery, response) => response.writeHead(503).end();
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    // A slow schedule (time scale 1000: 30 ms, 120 ms, 600 ms, 3.6 s …) so the restart falls between attempts.
    const first = await startSandboxProcess(['--webhook-url', subscriber.url, '--time-scale', '1000', '--quiet'], env);
    await createReport(first);
    await subscriber.waitFor((received) => received.length >= 4);
    expect(await first.stop()).toBe(0);
    const failed = subscriber.received.length;

    subscriber.answer = (_delivery, response) => response.writeHead(204).end();
    const second = await startSandboxProcess(['--time-scale', '1000', '--quiet'], env);
    cleanups.push(() => second.stop());
    await subscriber.waitFor((received) => new Set(eventsOf(received.slice(failed)).map((event) => event.type)).size === 2);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const acknowledged = eventsOf(subscriber.received.slice(failed));
    expect(acknowledged.map((event) => event.type).sort()).toEqual(['report.completed', 'report.created']);
  });
});

describe('svc sandbox start --signature-encoding', () => {
  /** The v1 of a delivery, and the base64 of HMAC-SHA256 over its `<t>.<body>`, made here with node:crypto. */
  const base64Signature = (delivery: { headers: Record<string, unknown>; body: string }) => {
    const [, t, v1] = /^t=(\d+),v1=(.+)$/.exec(String(delivery.headers['service-signature']))!;
    return { v1, expected: createHmac('sha256', SECRET).update(`${t}.${delivery.body}`).digest('base64') };
  };

  it('signs v1 in base64 when told, and keeps to it at the next start and in replays', async () => {
    const subscriber = await receiver();
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const first = await startSandboxProcess(['--webhook-url', subscriber.url, '--signature-encoding', 'base64', '--quiet'], env);
    cleanups.push(() => first.stop());
    await createReport(first);
    await subscriber.waitFor((received) => eventsOf(received).some((event) => event.type === 'report.completed'));
    expect(await first.stop()).toBe(0);
    for (const delivery of subscriber.received) {
      const { v1, expected } = base64Signature(delivery);
      expect(v1).toBe(expected);
    }

    const eventId = eventsOf(subscriber.received)[0]!.id;
    const replayed = await receiver();
    const replay = await runSvc(['sandbox', 'deliveries', 'replay', eventId, '--to', replayed.url, '--data-dir', first.dataDir], { env: first.env });
    expect(replay.code, replay.stderr).toBe(0);
    const { v1, expected } = base64Signature(replayed.received[0]!);
    expect(v1).toBe(expected);

    const second = await startSandboxProcess(['--quiet'], env);
    cleanups.push(() => second.stop());
    const before = subscriber.received.length;
    await createReport(second);
    await subscriber.waitFor((received) => received.length > before);
    const again = base64Signature(subscriber.received[before]!);
    expect(again.v1).toBe(again.expected);
  });
});

describe('svc sandbox start, several at once for one user', () => {
  it('three started together with data directories of their own each keep a profile that leads to them', async () => {
    const env = isolatedEnv();
    const sandboxes = await Promise.all(['first', 'second', 'third'].map((name) => startSandboxProcess(['--quiet'], env, join(env.HOME!, name))));
    for (const sandbox of sandboxes) cleanups.push(() => sandbox.stop());
    expect(new Set(sandboxes.map((sandbox) => sandbox.env.SVC_PROFILE)).size).toBe(3);
    for (const sandbox of sandboxes) {
      const applicant = await runSvc(
        ['applicants', 'create', '--json', '--given-names', 'Anna', '--surname', 'Eriksson', '--date-of-birth', '1984-08-12', '--nationality', 'SE'],
        {
          env: sandbox.env,
        },
      );
      expect(applicant.code, applicant.stderr).toBe(0);
      const id = (JSON.parse(applicant.stdout) as Applicant).id;
      // Made through its profile, the applicant is in this sandbox's store and no other's.
      const owners = await Promise.all(
        sandboxes.map(
          async (other) =>
            (
              await other.fetch(`/v1/reports`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ applicant_id: id, destination: 'DE', visa_type: 'tourist', purpose: 'holiday' }),
              })
            ).status,
        ),
      );
      expect(owners.map((status) => status < 300)).toEqual(sandboxes.map((other) => other === sandbox));
    }
  });

  it('a second one in the same data directory is refused (exit 15) while the first runs, and starts once it has stopped', async () => {
    const env = isolatedEnv();
    const first = await startSandboxProcess(['--quiet'], env);
    cleanups.push(() => first.stop());
    const refused = await runSvc(['sandbox', 'start', '--port', '0', '--json', '--data-dir', first.dataDir], { env, killAfterMs: 60_000 });
    expect(refused.code, refused.stderr).toBe(15);
    expect(JSON.parse(refused.stdout).error.message).toContain(`serving ${first.url}`);
    expect(await first.stop()).toBe(0);
    const next = await startSandboxProcess(['--quiet'], env);
    cleanups.push(() => next.stop());
    expect(next.env.SVC_PROFILE).toBe('sandbox');
  });
});
