import { fork } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownScript, packageFile } from '../core/package-files.js';
import type { Check } from './catalogue.js';
import type { KitContext } from './context.js';
import { sendWithKey } from './requests.js';
import { checkOfInteraction, PACT_PROVIDER, STATES } from './contract-terms.js';
import { FORWARDER_TOKEN_HEADER, Forwarder } from './forwarder.js';
import { CheckFailure, CheckSkipped, isSuccess, type Outcome, SetupError, shown } from './outcome.js';
import { type Delivery, eventOf, mentions, namesAnother } from './receiver.js';

/** Sets up one provider state through the public API and answers the values the interaction's `fromProviderState` expressions take. */
type StateHandler = (params: Record<string, unknown>) => Promise<Record<string, string>>;

interface PactInteraction {
  description: string;
  type: string;
  providerStates?: Array<{ name: string; params?: Record<string, unknown> }>;
  request?: { method: string; path: string; generators?: { path?: { expression?: string } } };
}

interface PactFile {
  interactions: PactInteraction[];
  [key: string]: unknown;
}

interface InteractionResult {
  description: string;
  result: string;
  pending?: boolean;
  mismatch?: {
    type?: string;
    message?: string;
    mismatches?: Array<{ mismatch?: string; path?: string; expected?: unknown; actual?: unknown; type?: string; key?: string }>;
  };
}

export interface PactRunOptions {
  /** The environment the verifier's process starts from (the command's): only what a Node process needs goes through. */
  env: NodeJS.ProcessEnv;
  /** Where the contracts are: contracts/ of the package. */
  contractsDir?: string;
  /** The provider's name for the verifier (`--provider-name`). */
  providerName?: string;
  /** Replaces the kit's state handlers (tests of the traps). */
  states?: Partial<Record<string, StateHandler>>;
  /** The provider the verifier talks to instead of the kit's forwarder (tests). */
  providerBaseUrl?: string;
  timeoutMs?: number;
}

export interface PactRunResult {
  outcomes: Map<string, Outcome>;
  /** Errors of state setups, by state: each fails (or skips) the checks of the interactions that need it. */
  stateErrors: Map<string, Error>;
  /** The verifier's own report, for a person to read when something went wrong. */
  output: string;
  /** What reached the forwarder: only the interactions' requests, never the verifier's state or message calls. */
  forwarded: string[];
  /** The verifier's own verdict per interaction (`OK`, `Error`…), before the kit's state errors are applied. */
  verdicts: Map<string, string>;
}

export const CONTRACTS_DIR = packageFile('contracts');

/**
 * What the verifier's process may see of the kit's environment. It needs none of the kit's keys
 * (the forwarder puts them in), and Pact reads its own variables from the environment: a
 * PACT_BROKER_BASE_URL of the CI would add the organisation's pacts from its broker to the run (and
 * replay them with the real keys), PACT_DESCRIPTION or PACT_PROVIDER_STATE would silently filter
 * the kit's interactions. Only what a Node process needs to run goes through.
 */
const CHILD_ENVIRONMENT = ['PATH', 'HOME', 'USERPROFILE', 'TMPDIR', 'TMP', 'TEMP', 'SystemRoot', 'LANG', 'LC_ALL', 'TZ'];

function childEnvironment(from: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PACT_DO_NOT_TRACK: 'true', NO_COLOR: '1', FORCE_COLOR: '0' };
  for (const name of CHILD_ENVIRONMENT) if (from[name] !== undefined) env[name] = from[name];
  return env;
}

/** The verifier's output is read only when it stops without a verdict: its last part is kept, not all of it. */
const OUTPUT_KEPT = 64 * 1024;

export async function readContracts(dir = CONTRACTS_DIR): Promise<Array<{ name: string; pact: PactFile }>> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  return Promise.all(names.map(async (name) => ({ name, pact: JSON.parse(await readFile(join(dir, name), 'utf8')) as PactFile })));
}

function contentTypeOf(delivery: Delivery): string {
  // Node keeps one Content-Type of a request, the first.
  const value = delivery.headers['content-type'];
  return value && /^application\/json\b/i.test(value) ? 'application/json' : (value ?? '');
}

/**
 * The provider states of the contracts, set up through the public API only: the shared fixtures
 * of the run (made once), and for the events the deliveries the implementation really sent to the
 * kit's receiver, kept for the message providers (which do not get the states' values).
 */
function kitStates(context: KitContext, deliveries: Map<string, Delivery>): Record<string, StateHandler> {
  return { ...fixtureStates(context), ...eventStates(context, deliveries) };
}

/** The states of the run's shared fixtures: an applicant, reports, a key to revoke, a document. */
function fixtureStates(context: KitContext): Record<string, StateHandler> {
  const { setup } = context;
  return {
    [STATES.applicant]: async () => ({ applicantId: (await setup.applicant()).id }),
    [STATES.completedReport]: async () => {
      const report = await setup.completedReport();
      return { reportId: report.id, applicantId: (await setup.applicant()).id };
    },
    [STATES.deletableReport]: async () => ({ reportId: (await setup.createReport('pact')).id }),
    [STATES.deletedReport]: async () => {
      const report = await setup.createReport('pact');
      const deleted = await sendWithKey(context, 'DELETE', `/v1/reports/${report.id}`, { role: 'api', purpose: 'pact' });
      if (!isSuccess(deleted.status)) throw new Error(`DELETE /v1/reports/${report.id} answered ${shown(deleted)}`);
      setup.deleted.add(report.id);
      return { reportId: report.id };
    },
    [STATES.revocableKey]: async () => ({ keyId: (await setup.keyToRevoke('pact')).id }),
    [STATES.document]: async () => ({ documentId: (await setup.document()).id }),
  };
}

/** The states of the events: each waits for the delivery the implementation sent the kit's receiver, and keeps it for the message providers. */
function eventStates(context: KitContext, deliveries: Map<string, Delivery>): Record<string, StateHandler> {
  const { setup, timeouts } = context;
  const receiver = () => {
    if (!context.receiver) throw new CheckSkipped('needs --webhook-port');
    return context.receiver;
  };
  const awaitEvent = async (state: string, what: string, since: number, match: (delivery: Delivery) => boolean) => {
    const found = await receiver().waitForEvent(match, timeouts.eventMs, since);
    // The event not sent is the check's verdict (unless deliveries were set aside as noise), not a setup the kit failed to make.
    if (!found) throw receiver().absence({ expected: what, got: `none within ${timeouts.eventMs / 1000} s`, request: "the kit's webhook receiver" });
    deliveries.set(state, found);
  };
  return {
    [STATES.reportCreated]: async () => {
      const report = await setup.firstReport();
      // The payload of report.created is not shown, so it may name no report: one that names this report, or
      // none at all (one naming another report is about the kit's others, or another pipeline's).
      await awaitEvent(
        STATES.reportCreated,
        `report.created for ${report.id}`,
        report.deliveriesBefore,
        (delivery) => eventOf(delivery).type === 'report.created' && !namesAnother(delivery.json, report.id),
      );
      return { reportId: report.id };
    },
    [STATES.reportCompleted]: async () => {
      const report = await setup.completedReport();
      await awaitEvent(
        STATES.reportCompleted,
        `report.completed for ${report.id}`,
        report.deliveriesBefore,
        (delivery) => eventOf(delivery).type === 'report.completed' && mentions(delivery.json, report.id),
      );
      return { reportId: report.id };
    },
    [STATES.documentAnalysed]: async () => {
      const document = await setup.document();
      const isSucceeded = (delivery: Delivery) => ['document.processed', 'document.parsed'].includes(eventOf(delivery).type ?? '');
      await awaitEvent(
        STATES.documentAnalysed,
        `document.processed or document.parsed for ${document.id}`,
        document.deliveriesBefore,
        (delivery) => isSucceeded(delivery) && mentions(delivery.json, document.id),
      );
      return { documentId: document.id };
    },
  };
}

function describeMismatches(result: InteractionResult): string {
  const mismatches = result.mismatch?.mismatches ?? [];
  if (mismatches.length === 0) return result.mismatch?.message ?? `the verifier reported ${result.result}`;
  return mismatches
    .slice(0, 6)
    .map((item) => {
      const where = item.path ? `${item.path}: ` : item.key ? `${item.key}: ` : '';
      return `${where}${(item.mismatch ?? `expected ${JSON.stringify(item.expected)}, got ${JSON.stringify(item.actual)}`).replace(/\s+/g, ' ')}`;
    })
    .join('; ');
}

function requestOf(interaction: PactInteraction, values: Map<string, Record<string, string>>): string {
  if (!interaction.request) return `${interaction.description.split(': ')[1] ?? 'the event'}, as delivered to the kit's receiver`;
  let path = interaction.request.path;
  const expression = interaction.request.generators?.path?.expression;
  if (expression) {
    const injected = Object.assign({}, ...(interaction.providerStates ?? []).map((state) => values.get(state.name) ?? {})) as Record<string, string>;
    path = expression.replace(/\$\{(\w+)\}/g, (whole, name: string) => injected[name] ?? whole);
  }
  return `${interaction.request.method} ${path}`;
}

/**
 * Verifies the interactions of contracts/ that back the selected checks: the Pact verifier (in a
 * child process) against the kit's forwarder, provider states through the public API, messages
 * from the real deliveries. Three traps of Pact's JS verifier are designed around:
 *
 * - an exception in a state handler only gets logged, and the interaction then runs with the
 *   contract's example values: the kit keeps each state's error and fails (or skips) the checks of
 *   the interactions that needed it, whatever the verifier concluded;
 * - a request filter also sees the verifier's own state-setup calls: the kit uses none; the real
 *   keys are put in by the forwarder, which only the interactions' own requests reach;
 * - message providers run in-process and do not receive the states' return values: the states keep
 *   the delivery they found, and the message source looks it up by the interaction's state.
 */
/** What the kit answers the verifier's child process with, and what it learns from it. */
interface VerifierSession {
  interactions: PactInteraction[];
  handlers: Record<string, StateHandler | undefined>;
  deliveries: Map<string, Delivery>;
  stateValues: Map<string, Record<string, string>>;
  stateErrors: Map<string, Error>;
  messageErrors: Map<string, string>;
  start: { pactFile: string; provider: string; providerBaseUrl: string; token: string; timeoutMs: number };
  env: NodeJS.ProcessEnv;
}

type Reply = (body: Record<string, unknown>) => unknown;

/** Sets up a provider state through the kit's handler, and keeps the values it made or why it could not. */
function answerState(session: VerifierSession, payload: Record<string, unknown>, reply: Reply): void {
  const state = String(payload.state);
  if (payload.action !== 'setup') return void reply({ result: {} });
  const handler = session.handlers[state];
  const run = handler
    ? handler((payload.params as Record<string, unknown>) ?? {})
    : Promise.reject(new Error(`the kit has no set-up for the provider state "${state}"`));
  run.then(
    (result) => {
      session.stateValues.set(state, result);
      reply({ result });
    },
    (error: Error) => {
      session.stateErrors.set(state, error);
      reply({ error: error.message });
    },
  );
}

/** A message interaction's content: the delivery the kit's receiver got for its state, never a value a state handed over. */
function answerMessage(session: VerifierSession, payload: Record<string, unknown>, reply: Reply): void {
  const description = String(payload.description);
  const interaction = session.interactions.find((item) => item.description === description);
  const state = interaction?.providerStates?.[0]?.name ?? '';
  const delivery = session.deliveries.get(state);
  if (!delivery) {
    // Pact would answer its own 500 and report the empty message; the kit keeps why there was none.
    const reason =
      session.stateErrors.get(state)?.message ??
      `no delivery was found for "${description}": the kit verifies the events the implementation sent to its receiver, never values handed over by a state`;
    session.messageErrors.set(description, reason);
    return void reply({ error: reason });
  }
  reply({ content: delivery.json ?? delivery.text, metadata: { contentType: contentTypeOf(delivery) } });
}

/**
 * Runs Pact's verifier in a child process (src/conformance/pact-child.ts) and answers its questions
 * over IPC: provider states set up through the kit's handlers, messages taken from what the kit's
 * receiver got. Returns the verifier's verdict (its JSON report) and the end of its output.
 */
async function runVerifierChild(session: VerifierSession): Promise<{ verdict: { ok: boolean; json: string }; output: string }> {
  const { interactions } = session;
  const states = [...new Set(interactions.flatMap((interaction) => (interaction.providerStates ?? []).map((state) => state.name)))];
  const messages = interactions.filter((interaction) => !interaction.request).map((interaction) => interaction.description);
  let output = '';
  let verdict: { ok: boolean; json: string } | undefined;
  const child = fork(ownScript('conformance/pact-child'), [], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: childEnvironment(session.env) });
  const keep = (chunk: string) => (output = (output + chunk).slice(-OUTPUT_KEPT));
  child.stdout?.setEncoding('utf8').on('data', keep);
  child.stderr?.setEncoding('utf8').on('data', keep);
  child.on('message', (message: { type: string; id: number; kind: string; payload: Record<string, unknown>; ok?: boolean; json?: string }) => {
    if (message.type === 'result') {
      verdict = { ok: Boolean(message.ok), json: String(message.json ?? '') };
      return;
    }
    if (message.type !== 'ask') return;
    const reply = (body: Record<string, unknown>) => child.connected && child.send({ type: 'reply', id: message.id, ...body });
    if (message.kind === 'state') answerState(session, message.payload, reply);
    else answerMessage(session, message.payload, reply);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.send({
    type: 'start',
    pactFile: session.start.pactFile,
    provider: session.start.provider,
    providerBaseUrl: session.start.providerBaseUrl,
    providerHeaders: { [FORWARDER_TOKEN_HEADER]: session.start.token },
    states,
    messages,
    timeoutMs: session.start.timeoutMs,
  });
  const code = await exited;
  return {
    verdict: verdict ?? {
      ok: false,
      json: `the Pact verifier stopped (exit code ${code}) before it reported: ${output.trim().split('\n').slice(-5).join(' ')}`,
    },
    output,
  };
}

/** What the kit knows better than the verifier: the values states made, and why a state, a message or a forwarded request failed. */
interface KnownErrors {
  stateValues: Map<string, Record<string, string>>;
  stateErrors: Map<string, Error>;
  messageErrors: Map<string, string>;
  forwardErrors: Map<string, Error>;
}

/**
 * The outcome of each wanted check from the verifier's verdict and what the kit knows better: a
 * state that could not be set up, a request the forwarder refused, a message with no delivery.
 */
function judge(
  wanted: ReadonlySet<string>,
  interactions: PactInteraction[],
  verdict: { json: string },
  known: KnownErrors,
): { outcomes: Map<string, Outcome>; results: InteractionResult[] | undefined } {
  const outcomes = new Map<string, Outcome>();
  let results: InteractionResult[] | undefined;
  try {
    results = (JSON.parse(verdict.json) as { interactionResults?: InteractionResult[] }).interactionResults;
  } catch {
    results = undefined;
  }

  const findings = new Map<string, Finding[]>();
  for (const interaction of interactions) {
    const id = checkOfInteraction(interaction.description);
    findings.set(id, [...(findings.get(id) ?? []), findingOf(interaction, results, verdict, known)]);
  }
  for (const id of wanted) {
    const found = findings.get(id) ?? [];
    const lines = (kind: Finding['kind']) => found.flatMap((finding) => (finding.kind === kind && finding.line !== undefined ? [finding.line] : []));
    const [failed, unsure, skipped] = [lines('failed'), lines('inconclusive'), lines('skipped')];
    if (failed.length > 0) outcomes.set(id, { status: 'failed', detail: failed.join('; '), findings: failed });
    else if (unsure.length > 0) outcomes.set(id, { status: 'inconclusive', detail: unsure.join('; ') });
    else if (skipped.length > 0) outcomes.set(id, { status: 'skipped', detail: skipped.join('; ') });
    else if (found.some((finding) => finding.kind === 'verified'))
      outcomes.set(id, { status: 'passed', detail: 'the implementation answered as the contract says' });
  }
  return { outcomes, results };
}

/** What one interaction says of its check: verified by the verifier (a failure when its result is not ok), or why it proves nothing. */
type Finding = { kind: 'failed' | 'inconclusive' | 'skipped'; line: string } | { kind: 'verified'; line?: undefined };

function findingOf(interaction: PactInteraction, results: InteractionResult[] | undefined, verdict: { json: string }, known: KnownErrors): Finding {
  const request = requestOf(interaction, known.stateValues);
  const stateError = (interaction.providerStates ?? []).map((state) => known.stateErrors.get(state.name)).find((error) => error !== undefined);
  if (stateError instanceof CheckSkipped) return { kind: 'skipped', line: stateError.message };
  if (stateError instanceof CheckFailure) return { kind: 'failed', line: stateError.message };
  // Trap 1: the verifier ran this interaction with the contract's example values; it proves nothing.
  if (stateError)
    return { kind: 'inconclusive', line: `${stateError instanceof SetupError ? '' : 'setting up the provider state failed: '}${stateError.message}` };
  const forwardError = known.forwardErrors.get(request);
  if (forwardError) return { kind: 'inconclusive', line: forwardError.message };
  const messageError = known.messageErrors.get(interaction.description);
  if (messageError) return { kind: 'inconclusive', line: messageError };
  const result = results?.find((item) => item.description === interaction.description);
  if (!result) return { kind: 'inconclusive', line: results ? `the verifier did not verify "${interaction.description}"` : verdict.json.slice(0, 400) };
  // A pending interaction that fails is still a failure here: the kit has no pending checks.
  if (!/^ok$/i.test(result.result)) return { kind: 'failed', line: `${describeMismatches(result)} (${request})` };
  return { kind: 'verified' };
}

/**
 * Verifies the interactions of contracts/ that back the selected checks: the Pact verifier (in a
 * child process) against the kit's forwarder, provider states through the public API, messages
 * from the real deliveries. Three traps of Pact's JS verifier are designed around:
 *
 * - an exception in a state handler only gets logged, and the interaction then runs with the
 *   contract's example values: the kit keeps each state's error and fails (or skips) the checks of
 *   the interactions that needed it, whatever the verifier concluded;
 * - a request filter also sees the verifier's own state-setup calls: the kit uses none; the real
 *   keys are put in by the forwarder, which only the interactions' own requests reach;
 * - message providers run in-process and do not receive the states' return values: the states keep
 *   the delivery they found, and the message source looks it up by the interaction's state.
 */
export async function runPactVerification(context: KitContext, checks: readonly Check[], options: PactRunOptions): Promise<PactRunResult> {
  const stateErrors = new Map<string, Error>();
  const wanted = new Set<string>(checks.map((entry) => entry.id));
  const contracts = await readContracts(options.contractsDir);
  const interactions = contracts.flatMap(({ pact }) => pact.interactions).filter((interaction) => wanted.has(checkOfInteraction(interaction.description)));
  if (interactions.length === 0) return { outcomes: new Map(), stateErrors, output: '', forwarded: [], verdicts: new Map() };

  const workDir = await mkdtemp(join(tmpdir(), 'svc-contract-'));
  const pactFile = join(workDir, 'selected.json');
  const [first] = contracts;
  const provider = options.providerName ?? PACT_PROVIDER;
  await writeFile(pactFile, JSON.stringify({ ...first!.pact, provider: { name: provider }, interactions }));

  const deliveries = new Map<string, Delivery>();
  const handlers: Record<string, StateHandler | undefined> = { ...kitStates(context, deliveries), ...options.states };
  const stateValues = new Map<string, Record<string, string>>();
  const messageErrors = new Map<string, string>();

  // The contract's example path or the one the states' values make: Pact sends the example when a state failed.
  const isInteraction = (method: string, path: string) =>
    interactions.some(
      (interaction) =>
        interaction.request?.method === method && (interaction.request.path === path || requestOf(interaction, stateValues) === `${method} ${path}`),
    );
  const forwarder = new Forwarder(context, isInteraction);
  const providerBaseUrl = options.providerBaseUrl ?? (await forwarder.start());
  let run: Awaited<ReturnType<typeof runVerifierChild>>;
  try {
    run = await runVerifierChild({
      interactions,
      handlers,
      deliveries,
      stateValues,
      stateErrors,
      messageErrors,
      start: { pactFile, provider, providerBaseUrl, token: forwarder.token, timeoutMs: options.timeoutMs ?? 180_000 },
      env: options.env,
    });
  } finally {
    await forwarder.close();
    await rm(workDir, { recursive: true, force: true });
  }
  const { outcomes, results } = judge(wanted, interactions, run.verdict, { stateValues, stateErrors, messageErrors, forwardErrors: forwarder.setupErrors });
  const verdicts = new Map((results ?? []).map((result) => [result.description, result.result]));
  return { outcomes, stateErrors, output: run.output, forwarded: forwarder.seen, verdicts };
}
