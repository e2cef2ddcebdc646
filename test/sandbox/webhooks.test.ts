import { afterEach, describe, expect, it } from 'vitest';
import type { Applicant, Report } from '../../src/api/types.js';
import { afterAttempt } from '../../src/sandbox/dispatcher.js';
import { verifySignature } from '../../src/webhooks/signature.js';
import { eventsOf, type Receiver, startReceiver } from '../helpers/receiver.js';
import { startSandboxInProcess, type TestSandbox } from '../helpers/sandbox.js';
import { isolatedEnv } from '../helpers/svc.js';

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
});
