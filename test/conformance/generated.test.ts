/**
 * The generated checks against the sandbox, in this process: they pass it and print their seed,
 * the same seed sends the same generated requests again, and each implementation whose fault shows
 * only on a generated input or sequence (test/conformance/generated-faults.ts) fails its check,
 * naming the seed and the smallest case as curl commands; that case, sent as the command says with
 * the run's keys, shows the fault again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networkOf } from '../../src/api/network.js';
import { DEFAULT_FIXTURES, type KitFixtures } from '../../src/conformance/fixtures.js';
import { type ConformanceJson, toJson } from '../../src/conformance/report.js';
import { type KitOptions, runConformance } from '../../src/conformance/run.js';
import { type ProxyState, startMutatingImplementation, type Variant } from '../helpers/mutating-implementation.js';
import { type InProcessSandbox, startSandboxInProcess } from '../helpers/sandbox.js';
import { GENERATED_FAULTS } from './generated-faults.js';

/** The fixtures of the accuracy test's broken variants: openapi.yaml's upload encoding, given, so that sequences upload. */
const FIXTURES: KitFixtures = { ...DEFAULT_FIXTURES, given: { ...DEFAULT_FIXTURES.given, document: true } };

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandboxInProcess({ plan: 'enterprise', log: undefined });
});
afterAll(async () => {
  await sandbox?.stop();
});

const FAITHFUL: Variant = { name: 'faithful', change: '', breaks: [] };

/** The generated checks against the sandbox behind the test proxy as `variant` changes it. */
async function verify(variant: Variant, options: Partial<KitOptions> = {}): Promise<{ json: ConformanceJson; generated: string[]; log: string[] }> {
  const state: ProxyState = { keys: sandbox.keys, created: new Map(), revoked: new Set(), applicants: new Map(), secret: '' };
  const implementation = await startMutatingImplementation(sandbox, variant, state);
  const log: string[] = [];
  try {
    const result = await runConformance({
      baseUrl: new URL(implementation.baseUrl),
      network: networkOf({}, { caCert: { path: implementation.caCertPath, source: 'the test' } }),
      keys: {
        api: sandbox.keys.test,
        admin: sandbox.keys.admin,
        readOnly: sandbox.keys.read_only,
        ipLocked: sandbox.keys.ip_locked,
        other: sandbox.keys.other_workspace,
        otherAdmin: sandbox.keys.other_workspace_admin,
      },
      fixtures: FIXTURES,
      level: 'spec',
      env: process.env,
      fast: true,
      only: ['generated.*'],
      timeouts: { completionMs: 30_000 },
      log: (line) => log.push(line),
      ...options,
    });
    return { json: toJson(result), generated: [], log };
  } finally {
    await implementation.close();
  }
}

describe('the generated checks', () => {
  it('pass the sandbox, each saying from which seed, and the run record keeps the seed and the requests', async () => {
    const { json, log } = await verify(FAITHFUL, { seed: 4242 });
    for (const check of json.checks) expect(check, check.id).toMatchObject({ status: 'passed', seed: 4242 });
    expect(json.checks.map((check) => check.id).sort()).toEqual([
      'generated.credentials',
      'generated.inputs-invalid',
      'generated.inputs-valid',
      'generated.no-server-error',
      'generated.sequences',
    ]);
    expect(json.run.generated).toMatchObject({ seed: 4242, budget: 300 });
    expect(json.run.generated!.requests).toBeGreaterThan(100);
    expect(log).toContainEqual(
      expect.stringMatching(
        /^Generated checks: seed 4242 \(--seed 4242 replays them\), 300 requests with --fast: what the rate-limit window left the kit \(X-RateLimit-Remaining \d+, of which it leaves 250000 to others and keeps some for the end of the run\), so that the run waits for no window, at most 300$/,
      ),
    );
  });

  for (const variant of GENERATED_FAULTS) {
    it(`fail ${variant.name} (${variant.breaks.join(', ')}), naming the seed and the smallest case`, async () => {
      const { json } = await verify(variant);
      const failed = json.checks.filter((check) => check.status !== 'passed');
      expect(failed.map((check) => check.id).sort(), JSON.stringify(failed, null, 2)).toEqual([...variant.breaks].sort());
      for (const check of failed) {
        expect(check.detail).toMatch(variant.reasons![check.id]!);
        expect(check.seed).toBe(json.run.generated!.seed);
        expect(check.minimal_case!.length).toBeGreaterThan(0);
        for (const line of check.minimal_case!) expect(line).toMatch(/^(curl -X [A-Z]+ "\$SVC_BASE_URL\/v1\/|# )/);
      }
    });
  }
});
