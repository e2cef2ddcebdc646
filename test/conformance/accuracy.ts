/**
 * The kit's accuracy: against an implementation that breaks one stated rule at a time, the kit
 * must fail at level spec (and name the rule's check); against ones that make other choices where
 * the specification says "not shown", given their fixtures, it must pass. The matrix (variant ->
 * failed and inconclusive checks) is printed, and written to $SVC_ACCURACY_MATRIX-<part> when that is set.
 * It runs in parts (accuracy-<part>.test.ts), each a test file of its own with its own sandbox, so
 * that the matrix is not one worker's.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHECKS_BY_ID } from '../../src/conformance/catalogue.js';
import type { RevocableKey } from '../../src/conformance/kit-keys.js';
import { readFixtures } from '../../src/conformance/fixtures.js';
import { type ConformanceJson, toJson } from '../../src/conformance/report.js';
import { runConformance } from '../../src/conformance/run.js';
import { SIGNED_PAYLOADS, signatureHeader, signatureHeaderOf, verifySignature } from '../../src/webhooks/signature.js';
import {
  type MutatingImplementation,
  type ProxyState,
  startMutatingImplementation,
  startWebhookHub,
  type Variant,
  type WebhookHub,
} from '../helpers/mutating-implementation.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { freePort } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { makeCertificate } from '../helpers/tls.js';
import { DIFFERENT_CHOICES, OTHER_CHOICES } from './different-choices.js';
import { GATEWAY, GATEWAY_MUTANTS, GATEWAY_X_SIGNATURE_SHA1 } from './gateway.js';
import { GATEWAY_BLIP_NEVER_CLEARS, GATEWAY_BLIPS } from './gateway-blips.js';
import { PRO_PLAN, PRO_PLAN_LINKS_ELSEWHERE, PRO_PLAN_MUTANTS } from './pro-plan.js';
import { DASHBOARD_KEY_SPENT, dashboardKeyRevokedMeanwhile } from './dashboard-keys.js';
import { BROKEN as STATED_RULES } from './variants.js';
import { GENERATED_FAULTS } from './generated-faults.js';
import { networkOf } from '../../src/api/network.js';

/** The implementations that break a stated rule each, or leave the kit without the evidence of one (each names the checks it leaves inconclusive). */
export const BROKEN = [
  ...STATED_RULES,
  ...GENERATED_FAULTS,
  ...PRO_PLAN_MUTANTS,
  ...GATEWAY_MUTANTS,
  GATEWAY_X_SIGNATURE_SHA1,
  GATEWAY_BLIP_NEVER_CLEARS,
  dashboardKeyRevokedMeanwhile(),
];

const SECRET = 'whsec_accuracytest0123456789abcdefghijklmn';
/** The broken variants state openapi.yaml's own upload encoding, so that documents.upload is judged at level spec. */
const BROKEN_FIXTURES = 'document:\n  encoding: multipart\n';

/**
 * Two sandboxes: one for the runs with generated checks, whose sequences upload documents by the
 * dozen, and one for the others. The sandbox checks one document at a time, and a report waits for
 * its applicant's documents: behind the generated uploads, other variants' reports stayed queued past
 * their timeout on a loaded machine.
 */
let handWrittenSandbox: RunningSandbox;
let generatedSandbox: RunningSandbox;
let hub: WebhookHub;
let receiverTls: { cert: string; certPath: string; keyPath: string };
const dir = mkdtempSync(join(tmpdir(), 'svc-accuracy-'));

/** A key made outside the implementation's API, as one made in a dashboard is. */
async function dashboardKey(sandbox: RunningSandbox, state: ProxyState): Promise<RevocableKey> {
  const answer = await sandbox.fetch('/v1/keys', {
    method: 'POST',
    key: sandbox.keys.admin,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'made in the dashboard' }),
  });
  const key = (await answer.json()) as { id: string; secret: string };
  state.created.set(key.id, key.secret);
  return { id: key.id, secret: key.secret };
}

interface Row {
  variant: Variant;
  failed: string[];
  inconclusive: string[];
  skipped: string[];
  /** Why each skipped check was skipped. */
  skipReasons: Record<string, string>;
  details: Record<string, string>;
  /** What the passed checks said. */
  notes: Record<string, string>;
  seconds: number;
}

/**
 * Whether the kit can verify the variant's signatures: it is then given the webhook secret, as an
 * operator would give it. Given the secret, a delivery it cannot verify is noise and no evidence,
 * so a variant whose signatures it cannot verify runs without: every delivery is judged as received.
 */
function kitVerifies(variant: Variant): boolean {
  const body = JSON.stringify({ id: 'evt_sample', type: 'report.created', data: {} });
  const headers = variant.sign ? variant.sign(SECRET, body) : { 'service-signature': signatureHeader(SECRET, body) };
  // As the kit's receiver verifies: any signed string and encoding level spec takes.
  return verifySignature(signatureHeaderOf(headers)?.value, body, { secrets: [SECRET], signedPayloads: SIGNED_PAYLOADS }).ok;
}

/**
 * The generated checks run against the faithful implementations (which they must pass) and the
 * generated faults (which only they catch); a hand-made broken variant is judged by the hand-written
 * checks its fault is named for, without them: whether the generated checks catch it too is
 * bench:kill-rate's question, not a row of this matrix.
 */
function generatedLeftOut(variant: Variant): string[] | undefined {
  return BROKEN.includes(variant) && !GENERATED_FAULTS.includes(variant) ? ['generated.*'] : undefined;
}

/**
 * The generated requests of a faithful implementation's run. Its generated checks must pass, and
 * this many show it; the 800 a run without --fast sends on the Enterprise plan, in each of the
 * matrix's runs at once, uploaded documents faster than the one sandbox they share checks them, and
 * the other variants' reports stayed queued past their timeout.
 */
const FAITHFUL_GENERATED_REQUESTS = 120;
const sandboxOf = (variant: Variant): RunningSandbox => (generatedLeftOut(variant) ? handWrittenSandbox : generatedSandbox);
const generatedRequestsOf = (variant: Variant): number | undefined => (PASSING.includes(variant) ? FAITHFUL_GENERATED_REQUESTS : undefined);

/**
 * The kit under test as users run it: the real binary, a process of its own per variant, keys in
 * its environment. Its receiver then answers as a real run's does, whatever the proxies of this
 * process are doing.
 */
async function verify(variant: Variant, state: ProxyState, implementation: MutatingImplementation): Promise<ConformanceJson> {
  const sandbox = sandboxOf(variant);
  const fixturesPath = join(dir, `${variant.name}.yaml`);
  writeFileSync(fixturesPath, variant.fixtures ?? BROKEN_FIXTURES);
  const port = await freePort();
  const revocable = variant.dashboardKeys ? await dashboardKey(sandbox, state) : undefined;
  const env = isolatedEnv({
    SVC_API_KEY: sandbox.keys.test,
    SVC_ADMIN_KEY: sandbox.keys.admin,
    SVC_READ_ONLY_KEY: sandbox.keys.read_only,
    SVC_IP_LOCKED_KEY: sandbox.keys.ip_locked,
    SVC_OTHER_WORKSPACE_KEY: sandbox.keys.other_workspace,
    SVC_OTHER_WORKSPACE_ADMIN_KEY: sandbox.keys.other_workspace_admin,
    ...(revocable && { SVC_REVOCABLE_KEY: revocable.secret }),
    ...((variant.givenSecret || kitVerifies(variant)) && { SVC_WEBHOOK_SECRET: SECRET }),
  });
  const webhookTls = variant.httpsSubscribers ? receiverTls : undefined;
  // A broken slow variant only needs the event checks; a passing one runs them all, the redeliveries included.
  const only = variant.only ?? (variant.slow && variant.breaks.length > 0 ? ['events.*'] : undefined);
  const exclude = generatedLeftOut(variant);
  if (variant.clock) return verifyInProcess(variant, state, implementation, { fixturesPath, port, revocable, webhookTls, only, exclude });
  const args = [
    ...['contract', 'verify', '--json', '--level', 'spec'],
    ...['--base-url', implementation.baseUrl, '--ca-cert', implementation.caCertPath, '--fixtures', fixturesPath],
    ...['--webhook-port', String(port)],
    ...(webhookTls ? ['--webhook-cert', webhookTls.certPath, '--webhook-key', webhookTls.keyPath] : []),
    ...(revocable ? ['--revocable-key-id', revocable.id] : []),
    ...(variant.slow ? [] : ['--fast']),
    ...(variant.provoke429 ? ['--provoke-429'] : []),
    ...(only ? ['--only', only.join(',')] : []),
    ...(exclude ? ['--exclude', exclude.join(',')] : []),
    ...(generatedRequestsOf(variant) === undefined ? [] : ['--generated-requests', String(generatedRequestsOf(variant))]),
    // A real run's waits: what a busy machine delays is not judged absent.
    ...['--report-timeout', '60s', '--event-timeout', '30s'],
  ];
  const unsubscribe = hub.add({ port, variant, state, ca: webhookTls?.cert });
  try {
    const result = await runSvc(args, { env, killAfterMs: VARIANT_HANG_MS });
    if (result.code !== 0 && result.code !== 17 && result.code !== 18) throw new Error(`the kit ended ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout) as ConformanceJson;
  } finally {
    unsubscribe();
  }
}

/**
 * A variant whose rate-limit window runs on a clock shared with the kit (so that the kit's burst
 * lands in one window however slowly the machine sends it) runs the kit in this process.
 */
async function verifyInProcess(
  variant: Variant,
  state: ProxyState,
  implementation: MutatingImplementation,
  inputs: {
    fixturesPath: string;
    port: number;
    revocable: RevocableKey | undefined;
    webhookTls: typeof receiverTls | undefined;
    only: string[] | undefined;
    exclude: string[] | undefined;
  },
): Promise<ConformanceJson> {
  const sandbox = sandboxOf(variant);
  const unsubscribe = hub.add({ port: inputs.port, variant, state, ca: inputs.webhookTls?.cert });
  try {
    const webhookTls = inputs.webhookTls && {
      cert: inputs.webhookTls.cert,
      key: readFileSync(inputs.webhookTls.keyPath, 'utf8'),
      certPath: inputs.webhookTls.certPath,
    };
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
        revocable: inputs.revocable,
      },
      fixtures: await readFixtures(inputs.fixturesPath),
      webhookSecret: variant.givenSecret || kitVerifies(variant) ? SECRET : undefined,
      webhookPort: inputs.port,
      webhookTls,
      level: 'spec',
      env: process.env,
      fast: !variant.slow,
      provoke429: variant.provoke429,
      only: inputs.only,
      exclude: inputs.exclude,
      generatedRequests: generatedRequestsOf(variant),
      timeouts: { completionMs: 60_000, eventMs: 30_000 },
      clock: variant.clock,
    });
    return toJson(result);
  } finally {
    unsubscribe();
  }
}

async function run(variant: Variant): Promise<Row> {
  const started = performance.now();
  const sandbox = sandboxOf(variant);
  const state: ProxyState = { keys: sandbox.keys, created: new Map(), revoked: new Set(), applicants: new Map(), secret: SECRET };
  const implementation = await startMutatingImplementation(sandbox, variant, state);
  try {
    const result = await verify(variant, state, implementation);
    const judged = (status: string) => result.checks.filter((check) => check.status === status);
    return {
      variant,
      failed: judged('failed').map((check) => check.id),
      inconclusive: judged('inconclusive').map((check) => check.id),
      skipped: judged('skipped').map((check) => check.id),
      skipReasons: Object.fromEntries(judged('skipped').map((check) => [check.id, check.detail])),
      details: Object.fromEntries([...judged('failed'), ...judged('inconclusive')].map((check) => [check.id, check.detail])),
      notes: Object.fromEntries(judged('passed').map((check) => [check.id, check.detail])),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await implementation.close();
  }
}

/** The webhook attempts not answered 2xx, the sandbox's to the hub and the hub's to the variant's kit: a missed event may be one of them. */
function unsent(variant: Variant): string {
  const failed = sandboxOf(variant)
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('webhook ') && !/: 2\d\d \(attempt/.test(line));
  const relayed = hub.unanswered(variant.name);
  return [
    failed.length === 0 ? '' : `; the sandbox's failed webhook attempts: ${failed.slice(0, 20).join(' | ')}`,
    relayed.length === 0 ? '' : `; the hub's attempts the kit did not answer 2xx: ${relayed.slice(0, 20).join(' | ')}`,
  ].join('');
}

// The slow variants wait out the 30 s redelivery windows: they start first and run beside the others.
const PASSING = [DIFFERENT_CHOICES, OTHER_CHOICES, PRO_PLAN, PRO_PLAN_LINKS_ELSEWHERE, GATEWAY, GATEWAY_BLIPS, DASHBOARD_KEY_SPENT];
const VARIANTS = [
  ...PASSING.filter((variant) => variant.slow),
  ...BROKEN.filter((variant) => variant.slow),
  ...PASSING.filter((variant) => !variant.slow),
  ...BROKEN.filter((variant) => !variant.slow),
];
/**
 * A hang guard for one variant's run, never a measure of speed: a run waits at most 60 s for its
 * report and 30 s for each event, and on a loaded machine its processor time stretches several
 * times over. Each variant has its own, so the matrix as a whole may take as long as the machine needs.
 */
const VARIANT_HANG_MS = 900_000;
/** Registers part `part` of `parts` of the matrix: every `parts`-th variant, the slow ones spread over the parts. */
export function accuracyMatrix(part: number, parts: number): void {
  const variants = VARIANTS.filter((_, index) => index % parts === part - 1);
  const rows = new Map<Variant, Row>();

  beforeAll(async () => {
    hub = await startWebhookHub();
    // Not --quiet: its log of webhook attempts tells, when an event is missed, whether the sandbox failed to send it.
    const start = () => startSandboxProcess(['--plan', 'enterprise', '--webhook-url', hub.url, '--webhook-secret', SECRET], isolatedEnv());
    [handWrittenSandbox, generatedSandbox] = await Promise.all([start(), start()]);
    const certificate = await makeCertificate();
    receiverTls = { cert: certificate.cert, certPath: join(dir, 'receiver.pem'), keyPath: join(dir, 'receiver-key.pem') };
    writeFileSync(receiverTls.certPath, certificate.cert);
    writeFileSync(receiverTls.keyPath, certificate.key, { mode: 0o600 });
  });

  afterAll(async () => {
    await Promise.all([handWrittenSandbox?.stop(), generatedSandbox?.stop()]);
    await hub?.close();
  });

  afterAll(() => {
    const listed = (ids: string[]) => (ids.length === 0 ? 'none' : ids.join(', '));
    const matrix = variants.flatMap((variant) => {
      const row = rows.get(variant);
      if (!row) return [];
      const failed = row.failed.length > 0 ? row.failed.join(', ') : row.inconclusive.length > 0 ? 'none (inconclusive)' : 'none (passes)';
      return [`| ${variant.name} | ${variant.change} | ${failed} | ${listed(row.inconclusive)} |`];
    });
    const table = ['| variant | what it changes | checks failed at level spec | inconclusive |', '|---|---|---|---|', ...matrix].join('\n');
    process.stdout.write(`\n${table}\n\n`);
    if (process.env.SVC_ACCURACY_MATRIX) {
      const timings = [...rows.values()].map((row) => ({
        variant: row.variant.name,
        details: row.details,
        seconds: row.seconds,
        unanswered: hub.unanswered(row.variant.name),
      }));
      writeFileSync(`${process.env.SVC_ACCURACY_MATRIX}-${part}`, `${table}\n\n${JSON.stringify(timings, null, 2)}\n`);
    }
  });

  // The kit fails every implementation that breaks a stated rule, and passes those that choose differently where the specification says "not shown".
  it.concurrent.each(variants)(
    '$name',
    async (variant) => {
      const row = await run(variant);
      rows.set(variant, row);
      for (const id of variant.breaks) expect(CHECKS_BY_ID.get(id)?.level, `${variant.name} names ${id}`).toBe('spec');
      for (const [id, reason] of Object.entries(variant.skipReasons ?? {})) expect(row.skipReasons[id], `${variant.name} skips ${id}`).toMatch(reason);
      if (PASSING.includes(variant)) {
        expect(row.details, `${variant.name} must pass at level spec${unsent(variant)}`).toEqual({});
        // Passed, not skipped: a check that cannot tell (a list it cannot page, a payload it cannot read) proves nothing.
        expect([...row.skipped].sort(), `${variant.name} skips: ${JSON.stringify(row.skipReasons)}`).toEqual([...(variant.skips ?? [])].sort());
        for (const [id, note] of Object.entries(variant.notes ?? {})) expect(row.notes[id], `${variant.name}: ${id}`).toMatch(note);
        // The generated checks that passed say from which seed: the run can be replayed with --seed.
        for (const [id, note] of Object.entries(row.notes)) if (id.startsWith('generated.')) expect(note, `${variant.name}: ${id}`).toMatch(/seed \d+/);
        if (variant.served) expect(variant.served, `${variant.name} served what the kit had to come through`).not.toEqual([]);
      } else {
        // Exactly these: a check failing beyond them would be a false failure (or a consequence to name in the variant).
        expect([...row.failed].sort(), `${variant.name} must fail ${variant.breaks.join(', ')}: ${JSON.stringify(row.details)}${unsent(variant)}`).toEqual(
          [...variant.breaks].sort(),
        );
        expect([...row.inconclusive].sort(), `${variant.name} leaves inconclusive: ${JSON.stringify(row.details)}`).toEqual(
          [...(variant.inconclusive ?? [])].sort(),
        );
        for (const [id, reason] of Object.entries(variant.reasons ?? {})) expect(row.details[id], `${variant.name}: ${id}`).toMatch(reason);
      }
    },
    VARIANT_HANG_MS,
  );
}
