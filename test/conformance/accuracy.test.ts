/**
 * The kit's accuracy: against an implementation that breaks one stated rule at a time, the kit
 * must fail at level spec (and name the rule's check); against one that makes other choices where
 * the specification says "not shown", it must pass. The matrix (variant -> failed checks) is
 * printed, and written to $SVC_ACCURACY_MATRIX when that is set.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHECKS_BY_ID } from '../../src/conformance/catalogue.js';
import { runConformance } from '../../src/conformance/run.js';
import { type ProxyState, startMutatingImplementation, startWebhookHub, type Variant, type WebhookHub } from '../helpers/mutating-implementation.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { isolatedEnv } from '../helpers/svc.js';
import { BROKEN, DIFFERENT_CHOICES } from './variants.js';

const SECRET = 'whsec_accuracytest0123456789abcdefghijklmn';
const CONCURRENCY = 4;

let sandbox: RunningSandbox;
let hub: WebhookHub;

beforeAll(async () => {
  hub = await startWebhookHub();
  sandbox = await startSandboxProcess(['--plan', 'enterprise', '--webhook-url', hub.url, '--webhook-secret', SECRET, '--quiet'], isolatedEnv());
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  await hub?.close();
});

interface Row {
  variant: Variant;
  failed: string[];
  details: Record<string, string>;
  seconds: number;
}

async function run(variant: Variant): Promise<Row> {
  const started = performance.now();
  const state: ProxyState = { keys: sandbox.keys, created: new Map(), revoked: new Set(), secret: SECRET };
  const implementation = await startMutatingImplementation(sandbox, variant, state);
  let unsubscribe: () => void = () => undefined;
  try {
    const result = await runConformance({
      baseUrl: new URL(implementation.baseUrl),
      caCertPath: implementation.caCertPath,
      keys: { api: sandbox.keys.test, admin: sandbox.keys.admin, readOnly: sandbox.keys.read_only, ipLocked: sandbox.keys.ip_locked, other: sandbox.keys.other_workspace },
      webhookSecret: SECRET,
      webhookPort: 0,
      onReceiverReady: (port) => void (unsubscribe = hub.add({ port, variant, state })),
      level: 'spec',
      fast: !variant.slow,
      only: variant.slow ? ['events.*'] : undefined,
      // Shorter than a real run's waits (a deployment may be slow), long enough for a loaded CI machine.
      timeouts: { completionMs: 15_000, eventMs: 10_000 },
    });
    const failed = result.checks.filter((check) => check.status === 'failed');
    return { variant, failed: failed.map((check) => check.id), details: Object.fromEntries(failed.map((check) => [check.id, check.detail])), seconds: (performance.now() - started) / 1000 };
  } finally {
    unsubscribe();
    await implementation.close();
  }
}

async function pool<T, R>(items: T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}

it('fails every implementation that breaks a stated rule, and passes one that chooses differently where the specification says "not shown"', async () => {
  // The slow variants wait out the 30 s redelivery window: they start first and run beside the others.
  const variants = [...BROKEN.filter((variant) => variant.slow), DIFFERENT_CHOICES, ...BROKEN.filter((variant) => !variant.slow)];
  const rows = await pool(variants, CONCURRENCY, run);

  const matrix = rows.map((row) => `| ${row.variant.name} | ${row.variant.change} | ${row.failed.length === 0 ? 'none (passes)' : row.failed.join(', ')} |`);
  const table = ['| variant | what it changes | checks failed at level spec |', '|---|---|---|', ...matrix].join('\n');
  process.stdout.write(`\n${table}\n\n`);
  if (process.env.SVC_ACCURACY_MATRIX) writeFileSync(process.env.SVC_ACCURACY_MATRIX, `${table}\n\n${JSON.stringify(rows.map((row) => ({ variant: row.variant.name, failed: row.details, seconds: row.seconds })), null, 2)}\n`);

  for (const row of rows) {
    for (const id of row.variant.breaks) expect(CHECKS_BY_ID.get(id)?.level, `${row.variant.name} names ${id}`).toBe('spec');
    if (row.variant.breaks.length === 0) {
      expect(row.details, `${row.variant.name} must pass at level spec`).toEqual({});
    } else {
      // Exactly these: a check failing beyond them would be a false failure (or a consequence to name in the variant).
      expect([...row.failed].sort(), `${row.variant.name} must fail ${row.variant.breaks.join(', ')}: ${JSON.stringify(row.details)}`).toEqual([...row.variant.breaks].sort());
    }
  }
}, 300_000);

it('has a switch for every check of level spec', () => {
  const switched = new Set(BROKEN.flatMap((variant) => variant.breaks));
  const spec = [...CHECKS_BY_ID.values()].filter((check) => check.level === 'spec').map((check) => check.id);
  expect(spec.filter((id) => !switched.has(id))).toEqual([]);
});
