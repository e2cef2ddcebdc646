/**
 * The webhook dev loop against the sandbox, as a developer runs it: `svc sandbox start`, `svc webhooks
 * listen --forward-to <app>`, `svc webhooks trigger <kind>`, with nothing copied by hand.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { verifySignature } from '../../../src/webhooks/signature.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { startListenInProcess } from '../../helpers/listen.js';
import { eventsOf, startReceiver } from '../../helpers/receiver.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { isolatedEnv } from '../../helpers/svc.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sandboxIn(env: Record<string, string>, webhookUrls?: string[]): Promise<InProcessSandbox> {
  const sandbox = await startSandboxInProcess({ webhookUrls }, env);
  cleanups.push(() => sandbox.stop());
  return sandbox;
}

describe("the sandbox's profile", () => {
  it("carries the sandbox's webhook secret: listen verifies the sandbox's own deliveries with no secret given", async () => {
    const first = await sandboxIn(isolatedEnv());
    await first.stop();
    cleanups.pop();
    // SVC_PROFILE=sandbox and nothing else: no SVC_WEBHOOK_SECRET, no --secret.
    const listen = await startListenInProcess([], first.env);
    cleanups.push(() => listen.stop());
    const sandbox = await sandboxIn(first.env, [`${listen.url}/hooks`]);

    const applicant = (await (
      await sandbox.fetch('/v1/applicants', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ given_names: 'Ana', surname: 'Silva', date_of_birth: '1990-01-02', nationality: 'PT' }),
      })
    ).json()) as { id: string };
    const report = (await (
      await sandbox.fetch('/v1/reports', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ applicant_id: applicant.id, destination: 'DE', visa_type: 'tourist', purpose: 'Holiday' }),
      })
    ).json()) as { id: string };

    await listen.waitFor((lines) => lines.filter((line) => line.resource_id === report.id).length === 2);
    expect(listen.lines.map((line) => [line.type, line.result])).toEqual([
      ['report.created', 'accepted'],
      ['report.completed', 'accepted'],
    ]);
  });
});

describe('svc webhooks trigger against the sandbox', () => {
  async function loop() {
    const sandbox = await sandboxIn(isolatedEnv());
    const app = await startReceiver();
    cleanups.push(() => app.close());
    const listen = await startListenInProcess(['--forward-to', app.url], sandbox.env);
    cleanups.push(() => listen.stop());
    return { sandbox, app, listen };
  }

  it("sends events about resources that exist, to the profile's listener, which forwards them to the application", async () => {
    const { sandbox, app, listen } = await loop();
    const result = await svcInProcess(['webhooks', 'trigger', 'all', '--json'], { env: sandbox.env });
    expect(result.code, result.stderr).toBe(0);
    const sent = JSON.parse(result.stdout) as Array<{ url: string; status: number; event: { id: string; type: string; data: Record<string, unknown> } }>;
    expect(sent.map((item) => [item.url, item.status])).toEqual(Array(6).fill([listen.url, 200]));
    expect(result.stderr).toContain(`Sending to the listener of the profile "sandbox" on ${listen.url}, which forwards to ${app.url}`);
    await app.waitFor((received) => received.length === 6);
    expect(eventsOf(app.received).map((event) => event.id)).toEqual(sent.map((item) => item.event.id));
    for (const delivery of app.received)
      expect(verifySignature(delivery.headers['service-signature'] as string, delivery.body, { secrets: [sandbox.keys.webhook_secret] }).ok).toBe(true);

    const byType = Object.fromEntries(sent.map((item) => [item.event.type, item.event.data]));
    const report = (await (await sandbox.fetch(`/v1/reports/${String(byType['report.completed']!.id)}`)).json()) as Record<string, unknown>;
    expect(report).toMatchObject({ status: 'completed' });
    expect(byType['report.completed']).toEqual({
      id: report.id,
      risk_score: report.risk_score,
      risk_band: report.score_band,
      completed_at: report.completed_at,
    });
    expect(byType['report.created']).toMatchObject({ id: report.id, status: 'queued' });
    expect(byType['report.failed']!.id).toBe(report.id);
    for (const kind of ['document.parsed', 'document.processed']) {
      const document = await sandbox.fetch(`/v1/documents/${String(byType[kind]!.id)}`);
      expect(document.status).toBe(200);
      expect(byType[kind]).toEqual(expect.objectContaining({ status: ((await document.json()) as { status: string }).status }));
    }
  });

  it('names a report given with --report and overrides fields as stripe trigger --override does', async () => {
    const { sandbox, listen } = await loop();
    const made = await svcInProcess(['webhooks', 'trigger', 'report.created', '--json'], { env: sandbox.env });
    const reportId = String(JSON.parse(made.stdout)[0].event.data.id);
    const result = await svcInProcess(
      ['webhooks', 'trigger', 'report.completed', '--report', reportId, '--override', 'data.risk_score=90', '--override', 'data.note=checked', '--json'],
      { env: sandbox.env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)[0].event.data).toMatchObject({ id: reportId, risk_score: 90, note: 'checked' });
    expect(result.stderr).not.toContain('Made the report');
    await listen.waitFor((lines) => lines.length === 2);

    const missing = await svcInProcess(['webhooks', 'trigger', 'report.completed', '--report', 'rep_nothere', '--json'], { env: sandbox.env });
    expect(missing.code).toBe(ExitCode.notFound);
    const bad = await svcInProcess(['webhooks', 'trigger', 'report.completed', '--override', 'type=report.failed', '--json'], { env: sandbox.env });
    expect([bad.code, JSON.parse(bad.stdout).error.code]).toEqual([ExitCode.usage, 'invalid_override']);
  });
});

describe('svc webhooks trigger elsewhere', () => {
  it('needs --to when no listener of the profile runs, and names the ids given without asking any service', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: 'whsec_elsewhere0123456789abcdefghijklmnop' });
    const none = await svcInProcess(['webhooks', 'trigger', 'report.completed', '--json'], { env });
    expect(none.code).toBe(ExitCode.usage);
    expect(JSON.parse(none.stdout).error).toMatchObject({
      code: 'no_receiver',
      message: 'no --to, and no `svc webhooks listen` of the profile "default" runs',
      hint: 'start one (`svc webhooks listen --forward-to <your application>`), or give --to <url>',
    });

    const app = await startReceiver();
    cleanups.push(() => app.close());
    const named = await svcInProcess(['webhooks', 'trigger', 'all', '--to', app.url, '--report', 'rep_given', '--document', 'doc_given', '--json'], { env });
    expect(named.code, named.stderr).toBe(0);
    expect(eventsOf(app.received).map((event) => [event.type, event.data.id])).toEqual([
      ['report.created', 'rep_given'],
      ['report.completed', 'rep_given'],
      ['report.failed', 'rep_given'],
      ['document.parsed', 'doc_given'],
      ['document.processed', 'doc_given'],
      ['document.rejected', expect.stringMatching(/^doc_/)],
    ]);
  });
});
