/**
 * The webhook dev loop against the sandbox, as a developer runs it: `svc sandbox start`, `svc webhooks
 * listen --forward-to <app>`, `svc webhooks trigger <kind>`, with nothing copied by hand.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startListenInProcess } from '../../helpers/listen.js';
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
