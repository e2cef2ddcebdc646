import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Applicant, Report } from '../../src/api/types.js';
import { ExitCode } from '../../src/core/errors.js';
import { afterAttempt } from '../../src/sandbox/dispatcher.js';
import { verifySignature } from '../../src/webhooks/signature.js';
import { eventsOf, type Receiver, startReceiver } from '../helpers/receiver.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { HANG_MS } from '../helpers/hang.js';

const SECRET = 'whsec_sandboxtestsecret0123456789abcdef';
const TIME_SCALE = 10_000;
/** Part 6's table: the delay before attempts 2 to 7. */
const SPEC_DELAYS_SECONDS = [30, 2 * 60, 10 * 60, 60 * 60, 6 * 60 * 60, 12 * 60 * 60];
const PROFILE = { given_names: 'Anna Maria', surname: 'Eriksson', date_of_birth: '1984-08-12', nationality: 'SE' };

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sandboxFor(receiver: Receiver, env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET })): Promise<RunningSandbox> {
  const sandbox = await startSandboxProcess(['--webhook-url', receiver.url, '--time-scale', String(TIME_SCALE), '--quiet'], env);
  cleanups.push(() => sandbox.stop());
  return sandbox;
}

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

describe('the retry schedule (part 6)', () => {
  it('makes an undelivered event due again after 30 s, 2 min, 10 min, 1 h, 6 h and 12 h, then dead-letters it', () => {
    const endedAt = Date.parse('2026-11-25T12:00:00Z');
    const dueAfter = [1, 2, 3, 4, 5, 6].map((attempt) => {
      const next = afterAttempt(attempt, false, endedAt, 1);
      return next.status === 'pending' ? (next.nextAttemptAt - endedAt) / 1000 : next.status;
    });
    expect(dueAfter).toEqual(SPEC_DELAYS_SECONDS);
    expect(afterAttempt(7, false, endedAt, 1)).toEqual({ status: 'dead', nextAttemptAt: null });
    expect(afterAttempt(3, true, endedAt, 1)).toEqual({ status: 'delivered', nextAttemptAt: null });
    expect(afterAttempt(2, false, endedAt, 60)).toEqual({ status: 'pending', nextAttemptAt: endedAt + 2_000 });
  });
});

describe('webhook events (part 6)', () => {
  it('announces a report with report.created then report.completed, signed, Service-Event equal to the type', async () => {
    const subscriber = await receiver();
    const sandbox = await sandboxFor(subscriber);
    const report = await createReport(sandbox);
    await subscriber.waitFor((received) => eventsOf(received).some((event) => event.type === 'report.completed'));
    const events = eventsOf(subscriber.received);
    expect(events.map((event) => event.type)).toEqual(['report.created', 'report.completed']);
    expect(events[0]!.data).toMatchObject({ id: report.id, status: 'queued' });
    expect(events[1]!.data).toMatchObject({ id: report.id });
    expect(Number.isInteger(events[1]!.data.risk_score)).toBe(true);
    expect(new Set(events.map((event) => event.id)).size).toBe(2);
    for (const delivery of subscriber.received) {
      const event = JSON.parse(delivery.body);
      expect(event.id).toMatch(/^evt_[A-Za-z0-9]+$/);
      expect(delivery.headers['service-event']).toBe(event.type);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(verifySignature(delivery.headers['service-signature'] as string, delivery.body, { secrets: [SECRET] })).toMatchObject({ ok: true });
    }
  });

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
          JSON.parse((await runSvc(['sandbox', 'deliveries', '--event', eventId, '--json', '--data-dir', sandbox.dataDir], { env: sandbox.env })).stdout)[0]
            ?.status,
        { timeout: HANG_MS },
      )
      .toBe('dead');
    const listed = JSON.parse(
      (await runSvc(['sandbox', 'deliveries', '--status', 'dead', '--json', '--data-dir', sandbox.dataDir], { env: sandbox.env })).stdout,
    );
    expect(listed.find((delivery: { event_id: string }) => delivery.event_id === eventId).attempt_log).toHaveLength(7);

    // Replayed to the subscriber that still answers 500: the receiver's failure, as webhooks replay says it.
    const refused = await runSvc(['sandbox', 'deliveries', 'replay', eventId, '--data-dir', sandbox.dataDir], { env: sandbox.env });
    expect(refused.code, refused.stderr).toBe(ExitCode.verificationFailed);
    expect(refused.stderr).toContain(`${eventId} → ${subscriber.url}: failed (500); the sandbox retries it`);

    const fixed = await receiver();
    const replay = await runSvc(['sandbox', 'deliveries', 'replay', eventId, '--to', fixed.url, '--json', '--data-dir', sandbox.dataDir], { env: sandbox.env });
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout)[0]).toMatchObject({ status: 'delivered', last_status: 200 });
    expect(eventsOf(fixed.received).map((event) => event.id)).toEqual([eventId]);
  });

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
