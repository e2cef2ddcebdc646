/**
 * Pipelines that share one deployment: three real `svc contract verify` at once against one sandbox
 * process. Subscribed only to the first kit's receiver, the sandbox delivers every pipeline's events
 * there: the first conforms although most of what it receives is about the other kits' reports, and
 * the other two, which receive nothing, have no evidence against the implementation: their event
 * checks are inconclusive, naming that nothing arrived and how to subscribe, never failed. Fanned out
 * to all three receivers, all three conform although each receives the others' events.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CHECKS_BY_ID } from '../../src/conformance/catalogue.js';
import type { ConformanceJson } from '../../src/conformance/report.js';
import { ExitCode } from '../../src/core/errors.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { freePort } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

const SECRET = 'whsec_sharedsubscription0123456789abcdefgh';
/** A hang guard for three kits at once on a busy machine, never a measure of speed. */
const KITS_HANG_MS = 300_000;

const sandboxes: RunningSandbox[] = [];
afterAll(async () => {
  for (const sandbox of sandboxes) await sandbox.stop();
});

/** Three kits at once, each with a receiver of its own, against a sandbox that delivers to the receivers of `subscribed` (by index). */
async function threeKits(subscribed: number[]): Promise<Array<{ code: number | null; output: ConformanceJson; port: number }>> {
  const ports = [await freePort(), await freePort(), await freePort()];
  const urls = subscribed.flatMap((index) => ['--webhook-url', `http://127.0.0.1:${ports[index]}/`]);
  const sandbox = await startSandboxProcess(['--plan', 'enterprise', '--webhook-secret', SECRET, '--quiet', ...urls]);
  sandboxes.push(sandbox);
  const { keys } = sandbox;
  const runs = ports.map(async (port) => {
    const env = isolatedEnv({
      SVC_API_KEY: keys.test,
      SVC_ADMIN_KEY: keys.admin,
      SVC_READ_ONLY_KEY: keys.read_only,
      SVC_OTHER_WORKSPACE_KEY: keys.other_workspace,
      SVC_WEBHOOK_SECRET: SECRET,
    });
    const args = ['contract', 'verify', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--webhook-port', String(port), '--fast', '--json'];
    const result = await runSvc(args, { env, killAfterMs: KITS_HANG_MS });
    if (!result.stdout) throw new Error(`the kit on port ${port} ended ${result.code} without a verdict: ${result.stderr}`);
    return { code: result.code, output: JSON.parse(result.stdout) as ConformanceJson, port };
  });
  return Promise.all(runs);
}

const judged = (output: ConformanceJson) =>
  Object.fromEntries(output.checks.filter((check) => check.status !== 'passed' && check.status !== 'skipped').map((check) => [check.id, check]));

describe('three kits at once against one deployment', () => {
  it('subscribed to the first kit only: the first conforms, the two that received nothing are inconclusive on their event checks, never failed', async () => {
    const [first, ...others] = await threeKits([0]);
    expect(first!.code, JSON.stringify(judged(first!.output))).toBe(ExitCode.ok);
    expect(first!.output.verdict).toBe('conforms');
    for (const kit of others) {
      expect(kit.code, JSON.stringify(judged(kit.output))).toBe(ExitCode.inconclusive);
      expect(kit.output.failed).toBe(0);
      expect(kit.output.run.webhook_receiver).toMatchObject({ deliveries: 0, noise: 0 });
      const undecided = kit.output.checks.filter((check) => check.status === 'inconclusive');
      // Only the event checks, each saying why and what to do.
      for (const check of undecided) {
        expect(CHECKS_BY_ID.get(check.id)?.needs, check.id).toContain('webhookPort');
        expect(check.detail, check.id).toContain(`nothing at all arrived at the kit's receiver (http://127.0.0.1:${kit.port}/) during the run`);
        expect(check.detail, check.id).toContain(`subscribe http://127.0.0.1:${kit.port}/ to the implementation's events`);
        expect(check.detail, check.id).toContain('one subscription per pipeline');
      }
      expect(undecided.map((check) => check.id)).toEqual(
        expect.arrayContaining(['events.report-created', 'events.report-completed', 'events.report-completed-fields', 'events.envelope']),
      );
    }
  });

  it('fanned out to all three receivers: each conforms, though each receives the events of the other two', async () => {
    const kits = await threeKits([0, 1, 2]);
    for (const kit of kits) {
      expect(kit.code, JSON.stringify(judged(kit.output))).toBe(ExitCode.ok);
      expect(kit.output.verdict).toBe('conforms');
      expect(kit.output.run.webhook_receiver?.deliveries).toBeGreaterThan(0);
    }
  });
});
