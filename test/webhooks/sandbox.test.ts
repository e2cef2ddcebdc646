import { afterEach, describe, expect, it } from 'vitest';
import type { Applicant } from '../../src/api/types.js';
import { type RunningListen, startListen } from '../helpers/listen.js';
import { eventsOf, type Receiver, startReceiver } from '../helpers/receiver.js';
import { startSandboxProcess } from '../helpers/sandbox.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

const SECRET = 'whsec_sandboxsender0123456789abcdefghij';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('svc webhooks listen with the sandbox as the sender', () => {
  it("verifies and stores the sandbox's events once each, through its retries of deliberately failed answers", async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const app: Receiver = await startReceiver();
    cleanups.push(() => app.close());
    // A third of the answers fail on purpose: the sandbox retries them on part 6's schedule, sped up.
    const running: RunningListen = await startListen(['--forward-to', app.url, '--fail-rate', '0.3'], env);
    cleanups.push(() => running.stop());
    const sandbox = await startSandboxProcess(['--webhook-url', `${running.url}/hooks`, '--time-scale', '10000', '--quiet'], env);
    cleanups.push(() => sandbox.stop());

    const json = { 'content-type': 'application/json' };
    const applicant = (await (
      await sandbox.fetch('/v1/applicants', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ given_names: 'Anna', surname: 'Eriksson', date_of_birth: '1984-08-12', nationality: 'SE' }),
      })
    ).json()) as Applicant;
    await sandbox.fetch('/v1/reports', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ applicant_id: applicant.id, destination: 'DE', visa_type: 'tourist', purpose: 'holiday' }),
    });
    const form = new FormData();
    form.set('type', 'other');
    form.set('file', new Blob(['A letter of invitation from Berlin.\n'], { type: 'text/plain' }), 'invitation.txt');
    await sandbox.fetch('/v1/documents', { method: 'POST', body: form });

    const wanted = ['report.created', 'report.completed', 'document.processed', 'document.parsed'];
    await running.waitFor((lines) => wanted.every((type) => lines.some((line) => line.type === type && line.result === 'accepted')));
    await app.waitFor((received) => received.length >= wanted.length);
    const accepted = running.lines.filter((line) => line.result === 'accepted');
    expect(accepted.map((line) => line.type).sort()).toEqual([...wanted].sort());
    expect(running.lines.filter((line) => line.result === 'rejected')).toEqual([]);
    for (const line of running.lines.filter((item) => item.result === 'injected')) expect(accepted.map((item) => item.event_id)).toContain(line.event_id);

    const forwarded = eventsOf(app.received).map((event) => event.id);
    expect(forwarded.sort()).toEqual(accepted.map((line) => line.event_id).sort());
    const stored = JSON.parse((await runSvc(['webhooks', 'events', '--store', running.store, '--json'], { env })).stdout);
    expect(stored.map((event: { event_id: string }) => event.event_id).sort()).toEqual(accepted.map((line) => line.event_id).sort());
    const delivered = JSON.parse((await runSvc(['sandbox', 'deliveries', '--json', '--data-dir', sandbox.dataDir], { env: sandbox.env })).stdout);
    expect(delivered.every((delivery: { status: string }) => delivery.status === 'delivered')).toBe(true);
  });
});
