import { afterEach, describe, expect, it } from 'vitest';
import type { Applicant, Report } from '../../../../src/api/types.js';
import { ExitCode } from '../../../../src/core/errors.js';
import { eventsOf, type Receiver, startReceiver } from '../../../helpers/receiver.js';
import { startSandboxInProcess, type TestSandbox } from '../../../helpers/sandbox.js';
import { svcInProcess } from '../../../helpers/in-process.js';
import { isolatedEnv } from '../../../helpers/svc.js';
import { HANG_MS } from '../../../helpers/hang.js';

/** `svc sandbox deliveries` and `sandbox deliveries replay` of an event the sandbox gave up on, the sandbox in the test's process. */

const SECRET = 'whsec_sandboxtestsecret0123456789abcdef';
const TIME_SCALE = 10_000;
/** Part 6's table: the delay before attempts 2 to 7. */
const SPEC_DELAYS_SECONDS = [30, 2 * 60, 10 * 60, 60 * 60, 6 * 60 * 60, 12 * 60 * 60];
const PROFILE = { given_names: 'Anna Maria', surname: 'Eriksson', date_of_birth: '1984-08-12', nationality: 'SE' };

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sandboxFor(receiver: Receiver, env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET })): Promise<TestSandbox> {
  const sandbox = await startSandboxInProcess({ webhookUrls: [receiver.url], webhookSecret: SECRET, timeScale: TIME_SCALE }, env);
  cleanups.push(() => sandbox.stop());
  return sandbox;
}

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  cleanups.push(() => started.close());
  return started;
}

async function createReport(sandbox: TestSandbox): Promise<Report> {
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

describe('svc sandbox deliveries replay', () => {
  it('retries a failing subscriber no sooner than the schedule says, keeps the event id, then dead-letters; replay delivers it', async () => {
    const subscriber = await receiver();
    subscriber.answer = (_delivery, response) => response.writeHead(500).end();
    const sandbox = await sandboxFor(subscriber);
    await createReport(sandbox);
    await subscriber.waitFor((received) => received.filter((delivery) => JSON.parse(delivery.body).type === 'report.created').length === 7);
    const created = subscriber.received.filter((delivery) => JSON.parse(delivery.body).type === 'report.created');
    expect(new Set(created.map((delivery) => delivery.body)).size).toBe(1);
    const gaps = created.slice(1).map((delivery, index) => delivery.at - created[index]!.at);
    // Never early (the exact delays are afterAttempt's, tested above; how late depends on the machine's load).
    gaps.forEach((gap, index) => expect(gap).toBeGreaterThanOrEqual((SPEC_DELAYS_SECONDS[index]! * 1000) / TIME_SCALE - 5));
    const eventId = JSON.parse(created[0]!.body).id as string;

    await expect
      .poll(
        async () =>
          JSON.parse(
            (await svcInProcess(['sandbox', 'deliveries', '--event', eventId, '--json', '--data-dir', sandbox.dataDir], { env: sandbox.env })).stdout,
          )[0]?.status,
        { timeout: HANG_MS },
      )
      .toBe('dead');
    const listed = JSON.parse(
      (await svcInProcess(['sandbox', 'deliveries', '--status', 'dead', '--json', '--data-dir', sandbox.dataDir], { env: sandbox.env })).stdout,
    );
    expect(listed.find((delivery: { event_id: string }) => delivery.event_id === eventId).attempt_log).toHaveLength(7);

    // Replayed to the subscriber that still answers 500: the receiver's failure, as webhooks replay says it.
    const refused = await svcInProcess(['sandbox', 'deliveries', 'replay', eventId, '--data-dir', sandbox.dataDir], { env: sandbox.env });
    expect(refused.code, refused.stderr).toBe(ExitCode.verificationFailed);
    expect(refused.stderr).toContain(`${eventId} → ${subscriber.url}: failed (500); the sandbox retries it`);

    const fixed = await receiver();
    const replay = await svcInProcess(['sandbox', 'deliveries', 'replay', eventId, '--to', fixed.url, '--json', '--data-dir', sandbox.dataDir], {
      env: sandbox.env,
    });
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout)[0]).toMatchObject({ status: 'delivered', last_status: 200 });
    expect(eventsOf(fixed.received).map((event) => event.id)).toEqual([eventId]);
  });
});
