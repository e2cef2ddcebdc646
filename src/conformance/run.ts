import { X509Certificate } from 'node:crypto';
import { CATALOGUE, type Check, type CheckId, INPUT_FLAGS, type Input, type Level, selectChecks } from './catalogue.js';
import { type KitContext, SharedSetup } from './context.js';
import { DEFAULT_TIMEOUTS, type KitKeys, type KitTimeouts } from './kit-keys.js';
import { DEFAULT_FIXTURES, type KitFixtures } from './fixtures.js';
import { ImplementationClient } from './http.js';
import type { RequestRate } from './request-rate.js';
import { type RunLimits, RunStopped } from './run-budget.js';
import { CheckFailure, CheckSkipped, describeFinding, type Outcome, ReplayableFailure, SetupError, type Status } from './outcome.js';
import { type PactRunOptions, runPactVerification } from './pact-runner.js';
import { authProbes } from './probes/auth.js';
import { eventProbes } from './probes/events.js';
import { generatedProbes } from './probes/generated.js';
import { GeneratedRun, generatedRequests, isGenerated, MAX_GENERATED_REQUESTS, runSeed } from './generated/plan.js';
import { limitProbes } from './probes/limits.js';
import { reportProbes } from './probes/reports.js';
import { signatureProbes } from './probes/signatures.js';
import { strictProbes } from './probes/strict.js';
import type { Probe } from './probes/types.js';
import { TransientAnswer } from './transient-answers.js';
import { WebhookReceiver } from './receiver.js';
import { type RunRecord, runRecord } from './record.js';
import { causeCode, errorFromFailure, isUntrustedCertificate } from '../api/errors.js';
import type { Network } from '../api/network.js';
import { ProxyFailure } from '../api/proxy.js';
import { type Clock, systemClock } from '../core/clock.js';
import { escapeControls } from '../core/control-characters.js';
import { redactText } from '../core/redaction.js';
import { ApiError, SvcError } from '../core/errors.js';
import type { SignatureEncoding } from '../webhooks/signature.js';

export interface KitOptions {
  baseUrl: URL;
  keys: KitKeys;
  webhookSecret?: string | undefined;
  /** The one encoding of v1 taken at level spec (`--signature-encoding`); both when not given. */
  signatureEncoding?: SignatureEncoding | undefined;
  /** Where the kit listens for the implementation's webhook deliveries (0: any free port, for tests). */
  webhookPort?: number | undefined;
  /** The address the receiver listens on: loopback unless the implementation delivers from another machine. */
  webhookHost?: string | undefined;
  level: Level;
  /** The proxies of the run's environment, and whom the kit trusts: the operator's CA, or anyone with `--insecure`. */
  network: Network;
  /** Skips the checks that wait out the specification's own delays (the 30 s redelivery). */
  fast?: boolean;
  /** Provokes a 429 with the test key (`--provoke-429`); a key given for it alone (`keys.rateLimit`) does too. */
  provoke429?: boolean | undefined;
  /** The kit's own cap on its request rate (`--rate-limit`). */
  rate?: RequestRate | undefined;
  /** The share of each rate-limit window the kit leaves to others (`--rate-limit-reserve`); DEFAULT_RESERVE unless given. */
  reserve?: number | undefined;
  /** The run's budgets for waiting at the implementation's request and for transient answers in a row (`--max-wait-total`, `--max-transient-answers`); DEFAULT_RUN_LIMITS where not given. */
  limits?: Partial<RunLimits> | undefined;
  only?: string[] | undefined;
  /** Checks left out (`--exclude`): ids and prefixes ending in `*`. */
  exclude?: string[] | undefined;
  /** The seed of the generated checks (`--seed`): the same seed generates the same inputs and sequences. A fresh one when not given. */
  seed?: number | undefined;
  /** How many requests the generated checks send in all (`--generated-requests`); else what the rate-limit window leaves them. */
  generatedRequests?: number | undefined;
  /** The request bodies the specification leaves open (`--fixtures`); the kit's defaults otherwise. */
  fixtures?: KitFixtures;
  /** The receiver speaks HTTPS with this certificate; `certPath` is where the implementation finds it to trust. */
  webhookTls?: { cert: string; key: string; certPath: string } | undefined;
  /** Lines for people, on stderr. */
  log?: (line: string) => void;
  timeouts?: Partial<KitTimeouts>;
  /** The environment of the run (the command's): the Pact verifier's process starts from what it allows of it. */
  env: NodeJS.ProcessEnv;
  pact?: Omit<PactRunOptions, 'env'>;
  /** The time the kit paces its requests, waits out rate-limit windows and times its checks by (tests share one with their implementation). */
  clock?: Clock | undefined;
  /** Called with the receiver's port once it listens (tests that start the implementation afterwards). */
  onReceiverReady?: (port: number) => void | Promise<void>;
}

/** When a check ran, in milliseconds from the start of the run, and for how long (checks run concurrently). */
interface CheckTime {
  start_ms: number;
  duration_ms: number;
}

export interface CheckResult {
  id: string;
  title: string;
  spec: string;
  level: Level;
  verified_by: Check['verifiedBy'];
  status: Status;
  detail: string;
  /** A failed check's every finding, one line each; `detail` shows the first five. */
  findings?: string[] | undefined;
  /** A generated check's: the seed of the run's generated checks (`--seed` replays them). */
  seed?: number | undefined;
  /** A failed generated check's: the smallest case that shows its failure, one request a line, as a person sends it again. */
  minimal_case?: string[] | undefined;
}

/** The JUnit report's: absent for a check that did not run. */
export interface TimedCheckResult extends CheckResult {
  time?: CheckTime | undefined;
}

export interface RunResult {
  level: Level;
  passed: number;
  failed: number;
  skipped: number;
  inconclusive: number;
  checks: TimedCheckResult[];
  run: RunRecord;
}

const PROBE_SETS = [reportProbes, authProbes, eventProbes, signatureProbes, limitProbes, strictProbes, generatedProbes];
export const PROBES: Partial<Record<CheckId, Probe>> = Object.fromEntries(PROBE_SETS.flatMap((set) => Object.entries(set.probes)));
export const FINAL: Partial<Record<CheckId, Probe>> = Object.fromEntries(PROBE_SETS.flatMap((set) => Object.entries(set.final ?? {})));

function missingInput(check: Check, options: KitOptions, fixtures: KitFixtures): Input | undefined {
  const { keys } = options;
  const given: Record<Input, boolean> = {
    adminKey: Boolean(keys.admin),
    readOnlyKey: Boolean(keys.readOnly),
    ipLockedKey: Boolean(keys.ipLocked),
    otherWorkspaceKey: Boolean(keys.other),
    otherWorkspaceAdminKey: Boolean(keys.otherAdmin),
    revocableKey: Boolean(keys.revocable ?? keys.admin),
    // At level strict the upload is checked in openapi.yaml's own encoding, which is an assumption.
    documentFixture: fixtures.given.document || options.level === 'strict',
    webhookPort: options.webhookPort !== undefined,
    webhookSecret: Boolean(options.webhookSecret),
    slow: !options.fast,
    provoke429: Boolean(options.provoke429) || Boolean(keys.rateLimit),
  };
  return check.needs.find((input) => !given[input]);
}

async function outcomeOf(probe: Probe, context: KitContext): Promise<Outcome> {
  try {
    const note = await probe(context);
    return { status: 'passed', detail: note || 'as the specification states' };
  } catch (error) {
    if (error instanceof CheckSkipped) return { status: 'skipped', detail: error.message };
    if (error instanceof CheckFailure)
      return {
        status: 'failed',
        detail: error.message,
        findings: error.findings.map(describeFinding),
        ...(error instanceof ReplayableFailure && { minimalCase: error.minimalCase }),
      };
    if (error instanceof SetupError || error instanceof TransientAnswer || error instanceof RunStopped)
      return { status: 'inconclusive', detail: error.message };
    const cause = (error as Error & { cause?: Error }).cause;
    return { status: 'inconclusive', detail: `the check could not complete: ${(error as Error).message}${cause?.message ? ` (${cause.message})` : ''}` };
  }
}

/**
 * How a check is decided in this run. A key of the dashboard can be revoked only once, so then the
 * revocation probe decides keys.revoke rather than a second revocation by Pact.
 */
function verifierOf(check: Check, keys: KitKeys): Check['verifiedBy'] {
  return check.id === 'keys.revoke' && keys.revocable ? 'probe' : check.verifiedBy;
}

/** Records when the work that decides checks ran, from the start of the run, as those checks' time. */
class CheckTimes {
  readonly times = new Map<string, CheckTime>();
  private readonly runStart: number;

  constructor(private readonly clock: Clock) {
    this.runStart = clock.now();
  }

  timed<T>(ids: string[], work: () => Promise<T>): Promise<T> {
    const start = this.clock.now();
    return work().finally(() => {
      const time = { start_ms: start - this.runStart, duration_ms: this.clock.now() - start };
      for (const id of ids) this.times.set(id, time);
    });
  }
}

function skipReason(missing: Input): string {
  if (missing === 'slow') return `--fast skips it: ${INPUT_FLAGS.slow}`;
  if (missing === 'provoke429') return `not asked for: give ${INPUT_FLAGS.provoke429}`;
  return `needs ${INPUT_FLAGS[missing]}`;
}

/** The checks whose inputs were given; the others are recorded as skipped, never passed. */
function runnableChecks(selected: readonly Check[], options: KitOptions, fixtures: KitFixtures, outcomes: Map<string, Outcome>): Check[] {
  const runnable: Check[] = [];
  for (const check of selected) {
    const missing = missingInput(check, options, fixtures);
    if (missing) outcomes.set(check.id, { status: 'skipped', detail: skipReason(missing) });
    else runnable.push(check);
  }
  return runnable;
}

function kitSecrets(keys: KitKeys, webhookSecret: string | undefined): string[] {
  return [keys.api, keys.admin, keys.readOnly, keys.ipLocked, keys.other, keys.otherAdmin, keys.revocable?.secret, keys.rateLimit, webhookSecret].filter(
    (value): value is string => Boolean(value),
  );
}

/** The kit's receiver, listening, when a runnable check needs deliveries and a port was given. */
async function startReceiver(options: KitOptions, runnable: readonly Check[], log: (line: string) => void): Promise<WebhookReceiver | undefined> {
  if (options.webhookPort === undefined || !runnable.some((check) => check.needs.includes('webhookPort'))) return undefined;
  const receiver = new WebhookReceiver({ secret: options.webhookSecret, encodings: options.signatureEncoding && [options.signatureEncoding] });
  const host = options.webhookHost ?? '127.0.0.1';
  const port = await receiver.start(options.webhookPort, host, options.webhookTls);
  log(`Listening for webhook deliveries on ${host} port ${port} (${receiver.scheme})`);
  if (!receiver.authenticated)
    log('Deliveries are not authenticated without --webhook-secret: anything that reaches the receiver counts, so the event verdicts are unauthenticated');
  if (options.webhookTls) log(`The receiver's certificate, for the implementation to trust: ${options.webhookTls.certPath}`);
  await options.onReceiverReady?.(port);
  return receiver;
}

/** Once the run has stopped, every check decided from then on is inconclusive with the reason, whatever its probe made of what it had. */
function stoppedOutcome(context: KitContext): Outcome | undefined {
  const stopped = context.client.budget.stopped;
  return stopped && { status: 'inconclusive', detail: stopped.message };
}

type Decide = (id: string, outcome: Outcome) => void;

/** Runs the probes of `checks` side by side (the Pact verification too, for those it decides), each outcome decided as it comes. */
function probeChecks(context: KitContext, checks: readonly Check[], pact: PactRunOptions, times: CheckTimes, decide: Decide): Promise<unknown> {
  const pending: Array<Promise<unknown>> = [];
  const pactChecks = checks.filter((check) => verifierOf(check, context.keys) === 'pact');
  if (pactChecks.length > 0) {
    pending.push(
      times
        .timed(
          pactChecks.map((check) => check.id),
          () => runPactVerification(context, pactChecks, pact),
        )
        .then(
          (result) => {
            for (const [id, outcome] of result.outcomes) decide(id, outcome);
          },
          (error: Error) => {
            for (const check of pactChecks) decide(check.id, { status: 'inconclusive', detail: `the Pact verification could not run: ${error.message}` });
          },
        ),
    );
  }
  for (const check of checks) {
    const probe = PROBES[check.id];
    if (probe && verifierOf(check, context.keys) === 'probe')
      pending.push(times.timed([check.id], () => outcomeOf(probe, context)).then((outcome) => decide(check.id, outcome)));
  }
  return Promise.all(pending);
}

/**
 * The seed and the request budget of the generated checks, once the others are done: what the
 * rate-limit window of the test key leaves them (see generatedRequests), or `--generated-requests`.
 */
function generatedRun(context: KitContext, options: KitOptions, checks: readonly Check[]): GeneratedRun {
  const fast = Boolean(options.fast);
  const room = context.client.windowRoom(`Bearer ${context.keys.api}`);
  const stillToSend = context.setup.reports.size - context.setup.deleted.size + context.setup.keys.size - context.setup.revoked.size;
  const requests = generatedRequests({ given: options.generatedRequests, fast, room, stillToSend });
  const most = fast ? MAX_GENERATED_REQUESTS.fast : MAX_GENERATED_REQUESTS.full;
  const why =
    options.generatedRequests !== undefined
      ? `--generated-requests ${options.generatedRequests}`
      : !room
        ? `${requests} requests, the most the kit sends${fast ? ' with --fast' : ''} where answers show no X-RateLimit-Remaining`
        : fast
          ? `${requests} requests with --fast: what the rate-limit window left the kit (X-RateLimit-Remaining ${room.remaining}, of which it leaves ${room.reserved} to others and keeps some for the end of the run), so that the run waits for no window${requests === most ? `, at most ${most}` : ''}`
          : `${requests} requests: the kit's share of one rate-limit window (${room.window} requests, of which it leaves ${room.reserved} to others)${requests === most ? `, at most ${most}` : ''}`;
  return new GeneratedRun(runSeed(options.seed), requests, checks.map((check) => check.id).filter(isGenerated), why);
}

/**
 * Decides the runnable checks: the Pact verification and the probes side by side; once those that
 * send requests are done (those that wait out the specification's delays may still be waiting), the
 * generated checks, with what the rate-limit window leaves them; then the cleanup of what the run
 * made, then the probes that look at what the cleanup left.
 */
async function decideChecks(
  context: KitContext,
  runnable: readonly Check[],
  options: KitOptions,
  pact: PactRunOptions,
  times: CheckTimes,
  outcomes: Map<string, Outcome>,
) {
  const decide: Decide = (id, outcome) => outcomes.set(id, stoppedOutcome(context) ?? outcome);
  const ordinary = runnable.filter((check) => !isGenerated(check.id));
  const waiting = probeChecks(
    context,
    ordinary.filter((check) => check.needs.includes('slow')),
    pact,
    times,
    decide,
  );
  await probeChecks(
    context,
    ordinary.filter((check) => !check.needs.includes('slow')),
    pact,
    times,
    decide,
  );
  const generated = runnable.filter((check) => isGenerated(check.id));
  if (generated.length > 0 && !context.client.budget.stopped) {
    context.generated = generatedRun(context, options, generated);
    context.log(`Generated checks: seed ${context.generated.seed} (--seed ${context.generated.seed} replays them), ${context.generated.why}`);
    await probeChecks(context, generated, pact, times, decide);
  }
  await waiting;

  const problems = await context.setup.cleanup();
  for (const problem of problems) context.log(`Cleanup: ${problem}`);
  for (const check of runnable) {
    const probe = FINAL[check.id];
    if (probe && !context.client.budget.stopped) decide(check.id, await times.timed([check.id], () => outcomeOf(probe, context)));
  }
}

/** Each selected check with its outcome. An implementation may echo a key in an error body: no key reaches the output, the JSON or the JUnit report. */
function checkResults(
  selected: readonly Check[],
  outcomes: Map<string, Outcome>,
  times: CheckTimes,
  context: Pick<KitContext, 'keys' | 'generated'>,
  secrets: string[],
): TimedCheckResult[] {
  const { keys } = context;
  return selected.map((check) => {
    const outcome = outcomes.get(check.id) ?? { status: 'inconclusive' as const, detail: 'the kit has no way to run this check (a defect of the kit)' };
    return {
      id: check.id,
      title: check.title,
      spec: check.spec,
      level: check.level,
      verified_by: verifierOf(check, keys),
      status: outcome.status,
      detail: redactText(outcome.detail, secrets),
      ...(outcome.findings ? { findings: outcome.findings.map((finding) => redactText(finding, secrets)) } : {}),
      ...(isGenerated(check.id) && context.generated && { seed: context.generated.seed }),
      ...(outcome.minimalCase ? { minimal_case: outcome.minimalCase.map((line) => redactText(line, secrets)) } : {}),
      time: times.times.get(check.id),
    };
  });
}

/** What the kit's receiver saw, for the run record. */
function receiverRecord(receiver: WebhookReceiver, options: KitOptions) {
  return {
    scheme: receiver.scheme,
    certificate: options.webhookTls?.certPath ?? null,
    certificate_sha256: options.webhookTls ? new X509Certificate(options.webhookTls.cert).fingerprint256 : null,
    authenticated: receiver.authenticated,
    deliveries: receiver.deliveries.length,
    noise: receiver.noiseCount,
    noise_reasons: Object.fromEntries(receiver.noise),
  };
}

/**
 * One run of the contract kit against an implementation: the selected checks of the catalogue,
 * the Pact verification and the probes side by side, feeding one result. Checks whose inputs were
 * not given are skipped, never passed. The reports and keys the run made are removed at the end.
 */
export async function runConformance(options: KitOptions): Promise<RunResult> {
  const started = new Date();
  const log = options.log ?? (() => undefined);
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const fixtures = options.fixtures ?? DEFAULT_FIXTURES;
  const clock = options.clock ?? systemClock;
  const { keys } = options;
  const { selected } = selectChecks(options.level, options.only, options.exclude);
  const outcomes = new Map<string, Outcome>();
  const times = new CheckTimes(clock);
  const runnable = runnableChecks(selected, options, fixtures, outcomes);
  const secrets = kitSecrets(keys, options.webhookSecret);
  const client = new ImplementationClient({
    baseUrl: options.baseUrl,
    network: options.network,
    timeoutMs: timeouts.answerMs,
    log,
    secrets,
    rate: options.rate,
    reserve: options.reserve,
    limits: options.limits,
    clock: options.clock,
  });
  const receiver = await startReceiver(options, runnable, log);
  // Past a budget, the run stops at once: the waits for deliveries end with the receiver.
  client.budget.signal.addEventListener('abort', () => {
    log(escapeControls(redactText(client.budget.stopped!.message, secrets)));
    void receiver?.close();
  });
  const base = {
    level: options.level,
    client,
    keys,
    webhookSecret: options.webhookSecret,
    signatureEncoding: options.signatureEncoding,
    receiver,
    fixtures,
    timeouts,
    fast: options.fast,
    clock,
    log,
  };
  const context: KitContext = { ...base, setup: new SharedSetup(base) };
  try {
    await preflight(context);
    log(`Running ${runnable.length} of ${selected.length} checks at level ${options.level} against ${client.baseUrlText}`);
    await decideChecks(context, runnable, options, { ...options.pact, env: options.env }, times, outcomes);
  } catch (error) {
    if (!(error instanceof RunStopped)) throw error;
  } finally {
    await receiver?.close();
  }
  const stopped = client.budget.stopped;
  if (stopped) for (const check of runnable) if (!outcomes.has(check.id)) outcomes.set(check.id, { status: 'inconclusive', detail: stopped.message });

  return runResult(options, checkResults(selected, outcomes, times, context, secrets), {
    started,
    fixtures,
    receiver,
    client,
    generated: context.generated && {
      seed: context.generated.seed,
      budget: context.generated.requests,
      requests: client.exchanges.filter((exchange) => isGenerated(exchange.purpose)).length,
    },
  });
}

/** The checks counted by status, with the run's record. */
async function runResult(
  options: KitOptions,
  checks: TimedCheckResult[],
  run: {
    started: Date;
    fixtures: KitFixtures;
    receiver: WebhookReceiver | undefined;
    client: ImplementationClient;
    generated: RunRecord['generated'] | undefined;
  },
): Promise<RunResult> {
  const { client } = run;
  const stopped = client.budget.stopped;
  const count = (status: Status) => checks.filter((check) => check.status === status).length;
  return {
    level: options.level,
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    inconclusive: count('inconclusive'),
    checks,
    run: await runRecord({
      baseUrl: options.baseUrl,
      level: options.level,
      fast: Boolean(options.fast),
      started: run.started,
      requests: client.requestsSent,
      budgets: { kept_answers: client.kept.record, ...client.budget.record },
      stopped: stopped ? { budget: stopped.budget, message: redactText(stopped.message, kitSecrets(options.keys, options.webhookSecret)) } : null,
      checks,
      catalogue: CATALOGUE,
      pactDir: options.pact?.contractsDir,
      fixtures: run.fixtures,
      webhookReceiver: run.receiver && receiverRecord(run.receiver, options),
      generated: run.generated,
    }),
  };
}

/** One request first: a wrong address, certificate or key is a setup error (exit code 8, 10 or 3), not a list of failed checks. */
async function preflight(context: KitContext): Promise<void> {
  let exchange;
  try {
    exchange = await context.client.send({
      method: 'GET',
      path: '/v1/reports',
      authorization: `Bearer ${context.keys.api}`,
      role: 'api',
      purpose: 'preflight',
    });
  } catch (error) {
    if (error instanceof RunStopped) throw error;
    if (error instanceof TransientAnswer)
      throw new SvcError('server', 'transient_answer', `the implementation is not answering yet: ${error.message}`, 'run the kit again later');
    const url = `${context.client.baseUrlText}/v1/reports`;
    if (error instanceof ProxyFailure) throw errorFromFailure({ method: 'GET', url, headers: {} }, error, context.timeouts.answerMs);
    const code = causeCode(error) ?? '';
    const tls = isUntrustedCertificate(code);
    const timedOut = (error as Error).name === 'TimeoutError';
    const trusted = tls ? `; svc trusted ${context.client.network.trust.describe()}` : '';
    const why = timedOut ? `no whole answer within ${context.timeouts.answerMs / 1000} s` : `${(error as Error).message}${code ? ` (${code})` : ''}${trusted}`;
    throw new ApiError({
      kind: 'network',
      code: tls ? 'tls_untrusted' : 'network_error',
      message: `cannot reach ${context.client.baseUrlText}: ${why}`,
      hint: tls
        ? "pass the implementation's CA certificate with --ca-cert (or, for a throwaway test deployment, --insecure)"
        : timedOut
          ? 'check that the implementation answers, or give it longer with --answer-timeout'
          : 'check --base-url and that the implementation is running',
      method: 'GET',
      url,
    });
  }
  if (exchange.status === 401) {
    throw new SvcError(
      'auth',
      'api_key_refused',
      `the implementation refused --api-key: GET /v1/reports answered 401 ${exchange.body.slice(0, 200)}`,
      'give a working svc_test_ key of the implementation (--api-key or SVC_API_KEY)',
    );
  }
}
