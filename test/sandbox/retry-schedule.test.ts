/**
 * The sandbox's webhook retry schedule (part 6) on its own clock: a subscriber that always answers
 * 503 gets the event again after 30 s, 2 min, 10 min, 1 h, 6 h and 12 h, then it is dead-lettered;
 * the whole 19 h 12 min 30 s pass on a stepping clock, none of them waited for real.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Applicant, Report } from '../../src/api/types.js';
import { steppingClock } from '../helpers/clock.js';
import { svcInProcess } from '../helpers/in-process.js';
import { eventsOf, type Received, startReceiver } from '../helpers/receiver.js';
import { type InProcessSandbox, startSandboxInProcess } from '../helpers/sandbox.js';

const SECRET = 'whsec_retryschedule0123456789abcdefghij';
/** Part 6's table: the delay before attempts 2 to 7. */
const SPEC_DELAYS_SECONDS = [30, 2 * 60, 10 * 60, 60 * 60, 6 * 60 * 60, 12 * 60 * 60];
const PROFILE = { given_names: 'Anna Maria', surname: 'Eriksson', date_of_birth: '1984-08-12', nationality: 'SE' };

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function createReport(sandbox: InProcessSandbox): Promise<Report> {
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

const completedOf = (received: Received[]) => received.filter((delivery) => eventsOf([delivery])[0]!.type === 'report.completed');

describe('the retry schedule (part 6), on the sandbox clock', () => {
  it('delivers an event answered 503 again after exactly 30 s, 2 min, 10 min, 1 h, 6 h and 12 h of its clock, then dead-letters it', async () => {
    const subscriber = await startReceiver();
    cleanups.push(() => subscriber.close());
    // Only report.completed fails, so no other delivery is pending while its attempts are under way.
    subscriber.answer = (delivery, response) => response.writeHead(eventsOf([delivery])[0]!.type === 'report.completed' ? 503 : 200).end();
    const clock = steppingClock();
    const sandbox = await startSandboxInProcess({ webhookUrls: [subscriber.url], webhookSecret: SECRET, clock });
    cleanups.push(() => sandbox.stop());

    const report = await createReport(sandbox);
    await subscriber.waitFor((received) => completedOf(received).length === 7);
    const completed = completedOf(subscriber.received);
    expect(new Set(completed.map((delivery) => delivery.body)).size).toBe(1);
    expect(eventsOf(completed)[0]!.data).toMatchObject({ id: report.id });
    const eventId = eventsOf(completed)[0]!.id;

    const deadLetter = async () => {
      const listed = await svcInProcess(['sandbox', 'deliveries', '--event', eventId, '--json', '--data-dir', sandbox.dataDir], { env: sandbox.env });
      return JSON.parse(listed.stdout)[0] as { status: string; attempt_log: Array<{ at: string; status: number }> };
    };
    await expect.poll(async () => (await deadLetter()).status).toBe('dead');
    const { attempt_log: attempts } = await deadLetter();
    expect(attempts.map((attempt) => attempt.status)).toEqual([503, 503, 503, 503, 503, 503, 503]);
    const gapsSeconds = attempts.slice(1).map((attempt, index) => (Date.parse(attempt.at) - Date.parse(attempts[index]!.at)) / 1000);
    expect(gapsSeconds).toEqual(SPEC_DELAYS_SECONDS);
    // report.created was answered 200 at once, and never sent again.
    expect(eventsOf(subscriber.received).filter((event) => event.type === 'report.created')).toHaveLength(1);
  });
});
