// How many faults of an implementation the contract kit catches: machine-made mutants (StrykerJS) of
// the sandbox's modules that implement stated rules, each served by a sandbox of its own and checked
// by `svc contract verify` at level spec.
//
// StrykerJS's instrumenter makes the mutants and places them all in one copy of the sources (its
// mutation switching: a mutant is active in a process whose __STRYKER_ACTIVE_MUTANT__ names it), as
// Stryker's own runners do; svc is built once from that copy with scripts/build.js. Stryker's command
// runner is not used: it judges a run by its exit code alone, measures no coverage and runs every
// mutant, where this needs the checks that failed (for the kill rate without the generated checks), the
// mutants no kit run reaches, and a sample.
//
// 1. A dry run: the instrumented sandbox with no mutant active must conform, and the mutants its code
//    reached during the kit's runs are covered (the others are "no coverage", never run: the kit
//    cannot reach them, as the sandbox's verification of signatures, which only receivers use).
// 2. A sample of the mutants, reproducible by its seed (ordered by sha256 of the seed and the mutant).
// 3. Each covered mutant of the sample: a sandbox started with it active (a fresh copy of one data
//    directory, its own webhook port), then `svc contract verify --fast`; a mutant that passes is run
//    again with the checks --fast leaves out (the redeliveries and a provoked 429, some 60 s), and so is
//    one that only generated checks failed. Killed: the kit did not say "conforms" (a failed or
//    inconclusive check, or a run that stopped: the sandbox did not start, a key refused); timeout: a
//    run past its deadline.
//
// The kit is this checkout's build (`npm run build` first), never the mutated one; `--svc` names the
// bin/run.js of another checkout's build (another branch's kit, against the same mutants).
// Usage: npm run bench:kill-rate [-- --sample 120 --seed 44 --concurrency 2 --out results.json --incremental results.json --svc <path/to/bin/run.js>]
// `--report results.json` prints an earlier run's figures again (after docs/kill-rate.md changed).
// `--incremental` takes an earlier run's results (its --out) and runs again only the mutants it did not
// kill, as Stryker's incremental mode does: for a change of the kit, the sandbox's sources unchanged.
// Prints the mutants in all and in the sample, killed, survived, timeout and no coverage, the kill rate
// with and without the generated checks (ids generated.*), and the survivors (file:line, mutator,
// replacement). Survivors recorded in docs/kill-rate.md as breaking no stated rule are marked so.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import { benchHome } from './home.js';

const { values } = parseArgs({
  options: {
    sample: { type: 'string', default: '120' },
    seed: { type: 'string', default: '44' },
    concurrency: { type: 'string', default: '2' },
    out: { type: 'string' },
    incremental: { type: 'string' },
    report: { type: 'string' },
    svc: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const sampleSize = Number(values.sample);
const concurrency = Number(values.concurrency);
if (!Number.isInteger(sampleSize) || sampleSize < 1) throw new Error('--sample is a whole number of at least 1');
if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('--concurrency is a whole number of at least 1');
if (!/^\d{1,9}$/.test(values.seed)) throw new Error('--seed is a whole number (of at most 9 digits)');

const root = fileURLToPath(new URL('../..', import.meta.url));
if (!existsSync(join(root, 'dist/cli/run.js'))) throw new Error('build svc first: npm run build');

/** The sandbox's modules that implement stated rules: keys and scopes, the rate limit, the routes and their validation, events and their dispatch, signatures. */
const MUTATED = [
  'src/sandbox/auth.ts',
  'src/sandbox/rate-limit.ts',
  'src/sandbox/request-handler.ts',
  'src/sandbox/routes/reports.ts',
  'src/sandbox/routes/applicants.ts',
  'src/sandbox/routes/documents.ts',
  'src/sandbox/routes/keys.ts',
  'src/sandbox/validation.ts',
  'src/sandbox/events.ts',
  'src/sandbox/processing.ts',
  'src/sandbox/dispatcher.ts',
  'src/webhooks/send.ts',
  'src/webhooks/signature.ts',
];
/** The checks --fast leaves out: a mutant that passes a --fast run faces them too. */
const SLOW_CHECKS = ['events.redelivery', 'events.redelivery-4xx', 'events.redelivery-timeout', 'limits.remaining-header-429'];
/**
 * The generated requests of the slow run: the Pro plan's window. --fast leaves the generated checks
 * what the probes left of the window (a few of their kinds), and a run just after it would find the
 * window spent and take its share of what is left: given, the kit paces them instead.
 */
const SLOW_GENERATED_REQUESTS = '120';
/** A kit's runs against a mutant: --fast, then the checks it leaves out, and the generated checks again where the kit has them. */
function kitRunsOf(generatedChecks) {
  const slow = generatedChecks
    ? ['--only', [...SLOW_CHECKS, 'generated.*'].join(','), '--generated-requests', SLOW_GENERATED_REQUESTS]
    : ['--only', SLOW_CHECKS.join(',')];
  return [
    { name: 'fast', args: ['--fast'] },
    { name: 'slow', args: [...slow, '--provoke-429'] },
  ];
}
const SECRET = 'whsec_killratebench0123456789abcdefghijkl';
const GENERATED = /^generated\./;
/** The heading of docs/kill-rate.md's section whose tables list the survivors that break no stated rule. */
const RECORDED_SECTION = '## Survivors that break no stated rule';

const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 60_000).toFixed(1)} min`;
/** Where a run keeps its copies of the project and its sandboxes' data: made when the run starts. */
let work;
/** The kit: `bin/run.js` of a copy of this checkout's build, or of the one `--svc` names. */
let kitBin;
/** Whether the kit has the generated checks (and their `--seed`). */
let kitHasGeneratedChecks;
/** The kit's runs against each mutant, in order. */
let kitRuns;

/** A copy of `paths` of this checkout in `dir`, node_modules linked: a build of the checkout during the run then changes nothing of it. */
function copyOfCheckout(dir, paths, checkout = root) {
  for (const path of paths) cpSync(join(checkout, path), join(dir, path), { recursive: true });
  symlinkSync(join(checkout, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}
const log = (line) => console.error(`[${elapsed()}] ${line}`);

/** Every mutant of MUTATED, and a copy of the project whose sources hold them all. */
async function instrument() {
  const quiet = () => undefined;
  const logger = Object.fromEntries(['trace', 'debug', 'info', 'warn', 'error', 'fatal'].map((level) => [level, quiet]));
  for (const level of ['Trace', 'Debug', 'Info', 'Warn', 'Error', 'Fatal']) logger[`is${level}Enabled`] = () => false;
  const sources = MUTATED.map((name) => ({ name, content: readFileSync(join(root, name), 'utf8'), mutate: true }));
  const { files, mutants } = await new Instrumenter(logger).instrument(sources, { plugins: null, excludedMutations: [], ignorers: [] });
  const project = copyOfCheckout(join(work, 'project'), ['package.json', 'tsconfig.json', 'openapi.yaml', 'oclif.manifest.json', 'bin', 'scripts', 'src']);
  for (const file of files) writeFileSync(join(project, file.name), file.content);
  const sourceLines = new Map(sources.map(({ name, content }) => [name, content.split('\n')]));
  return { project, mutants: mutants.map((mutant) => ({ ...mutant, original: originalText(sourceLines.get(mutant.fileName), mutant.location) })) };
}

/** The source a mutant replaces (its location's lines are counted from 0, as Stryker's API gives them). */
function originalText(lines, { start, end }) {
  const picked = lines.slice(start.line, end.line + 1);
  picked[picked.length - 1] = picked.at(-1).slice(0, end.column);
  picked[0] = picked[0].slice(start.column);
  return picked.join('\n');
}

function run(args, options) {
  const child = spawn(process.execPath, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (output.stderr += chunk));
  let timer;
  const ended = new Promise((resolve) => child.once('exit', (status) => resolve({ ...output, status, timedOut: false })));
  const deadline = new Promise((resolve) => {
    timer = setTimeout(() => {
      // The kit's own children (Pact's verifier) are in its process group.
      process.kill(-child.pid, 'SIGKILL');
      resolve({ ...output, status: null, timedOut: true });
    }, options.timeoutMs ?? 600_000);
  });
  return Promise.race([ended, deadline]).finally(() => clearTimeout(timer));
}

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The mutated build's sandbox, `mutantId` active, in a copy of the template's data directory; undefined when it did not start. */
async function startSandbox(project, template, { mutantId, coverageFile }) {
  const { home, env } = benchHome('svc-bench-kill-rate-sandbox-');
  const dataDir = template ? join(home, 'sandbox') : join(work, 'template');
  if (template) cpSync(template, dataDir, { recursive: true, filter: (path) => !path.endsWith('sandbox.lock') });
  const webhookPort = await freePort();
  const childEnv = { ...env, SVC_WEBHOOK_SECRET: SECRET };
  if (mutantId !== undefined) childEnv.__STRYKER_ACTIVE_MUTANT__ = mutantId;
  if (coverageFile) childEnv.SVC_MUTANT_COVERAGE = coverageFile;
  const args = [
    ...(coverageFile ? ['--import', new URL('mutant-coverage.js', import.meta.url).href] : []),
    ...[join(project, 'bin/run.js'), 'sandbox', 'start', '--port', '0', '--json', '--quiet', '--data-dir', dataDir],
    ...['--webhook-url', `http://127.0.0.1:${webhookPort}/`],
  ];
  const child = spawn(process.execPath, args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const ready = await Promise.race([
    new Promise((resolve) => createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line)))),
    exited.then(() => undefined),
    new Promise((resolve) => setTimeout(resolve, 60_000)),
  ]);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(home, { recursive: true, force: true });
  };
  if (!ready) {
    await stop();
    return { failed: `the sandbox did not start: ${stderr.trim().split('\n').at(-1) ?? 'no output'}` };
  }
  return { ready, dataDir, webhookPort, env, stop };
}

/** One stage of the kit against a sandbox: what it found, or that it ran out of time. */
async function verify(sandbox, keys, fixtures, stage, timeoutMs) {
  const kitEnv = {
    ...sandbox.env,
    SVC_API_KEY: keys.test,
    SVC_ADMIN_KEY: keys.admin,
    SVC_READ_ONLY_KEY: keys.read_only,
    SVC_IP_LOCKED_KEY: keys.ip_locked,
    SVC_OTHER_WORKSPACE_KEY: keys.other_workspace,
    SVC_OTHER_WORKSPACE_ADMIN_KEY: keys.other_workspace_admin,
    SVC_WEBHOOK_SECRET: SECRET,
  };
  const args = [
    ...[kitBin, 'contract', 'verify', '--json', '--base-url', sandbox.ready.url, '--ca-cert', sandbox.ready.ca_cert],
    ...['--webhook-port', String(sandbox.webhookPort), '--fixtures', fixtures, '--rate-limit-reserve', '0'],
    ...['--report-timeout', '30s', '--event-timeout', '20s'],
    // The generated checks (generated.*) generate from the bench's seed, so that a run can be repeated.
    ...(kitHasGeneratedChecks ? ['--seed', values.seed] : []),
    ...stage.args,
  ];
  const began = performance.now();
  const kit = await run(args, { env: kitEnv, timeoutMs });
  const seconds = (performance.now() - began) / 1000;
  if (kit.timedOut) return { stage: stage.name, seconds, timedOut: true, killers: [] };
  let result;
  try {
    result = JSON.parse(kit.stdout);
  } catch {
    result = undefined;
  }
  const killers = result?.checks
    ? result.checks.filter((check) => check.status === 'failed' || check.status === 'inconclusive').map((check) => `${check.id} (${check.status})`)
    : [];
  if (kit.status !== 0 && killers.length === 0)
    killers.push(`the run stopped (exit ${kit.status}): ${kit.stderr.trim().split('\n').at(-1) ?? ''}`.slice(0, 300));
  const details = result?.checks
    ?.filter((check) => check.status === 'failed' || check.status === 'inconclusive')
    .map((check) => `${check.id}: ${check.detail.slice(0, 300)}`);
  return { stage: stage.name, seconds, status: kit.status, verdict: result?.verdict, killers, details: details ?? [] };
}

/**
 * A mutant's fate: each stage until one does not pass. A stage that only generated checks failed does
 * not stop it: the next stage may kill it without them, for the kill rate without the generated checks.
 */
async function judge(project, template, keys, fixtures, mutant, deadlines) {
  const sandbox = await startSandbox(project, template, { mutantId: mutant.id });
  if (sandbox.failed) return { status: 'killed', killers: [sandbox.failed], stages: [] };
  try {
    const stages = [];
    const killers = [];
    for (const stage of kitRuns) {
      const outcome = await verify(sandbox, keys, fixtures, stage, deadlines[stage.name]);
      stages.push(outcome);
      if (outcome.timedOut) return { status: killers.length > 0 ? 'killed' : 'timeout', killers, stages };
      if (outcome.status === 0) continue;
      killers.push(...outcome.killers);
      if (!outcome.killers.every((killer) => GENERATED.test(killer))) break;
    }
    return { status: killers.length > 0 ? 'killed' : 'survived', killers, stages };
  } finally {
    await sandbox.stop();
  }
}

const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const keyOf = (mutant) => `${mutant.fileName}:${mutant.location.start.line + 1}:${mutant.location.start.column}:${mutant.mutatorName}:${mutant.replacement}`;
/** A mutant across runs: two mutants of one place may differ only in how much they replace (`a !== b` or `a !== b && c` made `true`). */
const identityOf = (mutant) => `${keyOf(mutant)}:${mutant.location.end.line + 1}:${mutant.location.end.column}`;
const oneLine = (text, max = 70) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** A table cell's code: one line, `|` escaped, in a code span whose backticks outnumber any run of them in the code. */
function code(text) {
  const line = oneLine(text).replaceAll('|', '\\|');
  const fence = '`'.repeat(Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  return fence.length > 1 ? `${fence} ${line} ${fence}` : `${fence}${line}${fence}`;
}
/** What names a survivor in docs/kill-rate.md: its module, mutator, original and replacement (not its line, which moves). */
const recordKey = (mutant) => `${mutant.fileName} ${mutant.mutatorName} ${code(mutant.original)} ${code(mutant.replacement)}`;

/** The survivors docs/kill-rate.md records as breaking no stated rule: the rows of that section's tables, which start as the bench prints them. */
function recordedSurvivors() {
  const doc = join(root, 'docs/kill-rate.md');
  if (!existsSync(doc)) return new Set();
  const section = readFileSync(doc, 'utf8')
    .split(/^(?=## )/m)
    .find((part) => part.startsWith(RECORDED_SECTION));
  const rows = (section ?? '')
    .split('\n')
    .filter((line) => line.startsWith('| `src/'))
    .map((line) => line.slice(2).split(/ +\| +/));
  return new Set(rows.map(([place, mutator, original, replacement]) => `${place.replace(/^`|:\d+`$/g, '')} ${mutator} ${original} ${replacement}`));
}

/** The figures of a run, and its survivors, each marked when docs/kill-rate.md records it as breaking no stated rule. */
function printReport({ seed, kit, modules, mutants, minutes, incremental, sampled }) {
  const count = (status) => sampled.filter((mutant) => mutant.status === status).length;
  const killedBy = (pattern) => sampled.filter((mutant) => mutant.status === 'killed' && mutant.killers.some((killer) => pattern.test(killer))).length;
  const killed = count('killed');
  const timeouts = count('timeout');
  const noCoverage = count('no coverage');
  const reached = sampled.length - noCoverage;
  const failing = killedBy(/\(failed\)$/);
  const stopped = killedBy(/^the (run stopped|sandbox did not start)/);
  const killedWithoutGenerated = sampled.filter((mutant) => mutant.status === 'killed' && mutant.killers.some((killer) => !GENERATED.test(killer))).length;
  const reused = sampled.filter((mutant) => mutant.reused).length;
  const percent = (part, whole) => (whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)} %`);
  const recorded = recordedSurvivors();
  const survivors = sampled.filter((mutant) => mutant.status === 'survived');
  const unrecorded = survivors.filter((mutant) => !recorded.has(recordKey(mutant)));
  const generatedChecks = sampled.some((mutant) => mutant.killers.some((killer) => GENERATED.test(killer)));

  console.log(`kill rate of svc contract verify (level spec${kit ? `, the kit of ${kit}` : ''}) against mutants of the sandbox; seed ${seed}; ${minutes}`);
  console.log('| | mutants |');
  console.log('|---|---|');
  console.log(`| in the ${modules} modules | ${mutants} |`);
  console.log(`| sampled | ${sampled.length} |`);
  console.log(`| no coverage (reached by no kit run, not run) | ${noCoverage} |`);
  console.log(
    `| killed | ${killed}: ${failing} by a failed check, ${killed - failing - stopped} by inconclusive checks alone, ${stopped} by a run that stopped${reused > 0 ? ` (${reused} killed in ${incremental}, not run again)` : ''} |`,
  );
  console.log(`| timeout | ${timeouts} |`);
  console.log(`| survived | ${survivors.length} (${survivors.length - unrecorded.length} recorded in docs/kill-rate.md as breaking no stated rule) |`);
  console.log('');
  console.log(`kill rate, of the ${reached} sampled mutants a kit run reaches (killed or timeout):`);
  console.log(`- with the generated checks: ${percent(killed + timeouts, reached)}`);
  console.log(`- without them (a check other than generated.* failed or was inconclusive): ${percent(killedWithoutGenerated + timeouts, reached)}`);
  if (!generatedChecks) console.log('  (no generated.* check failed or was inconclusive on any mutant: the two figures are equal)');
  console.log(
    `- of those that break a stated rule (the survivors docs/kill-rate.md records left out): ${percent(killed + timeouts, reached - (survivors.length - unrecorded.length))}`,
  );
  console.log(
    `- of all ${sampled.length} sampled, those no kit run reaches counted as survivors (Stryker's mutation score): ${percent(killed + timeouts, sampled.length)}`,
  );
  const uncovered = Object.entries(
    Object.groupBy(
      sampled.filter((mutant) => mutant.status === 'no coverage'),
      (mutant) => mutant.fileName,
    ),
  );
  if (uncovered.length > 0)
    console.log(
      `  reached by no kit run: ${uncovered.map(([file, list]) => `${file} ${list.length} (lines ${[...new Set(list.map((mutant) => mutant.location.start.line + 1))].sort((a, b) => a - b).join(', ')})`).join('; ')}`,
    );
  console.log('');
  console.log(`survivors (${survivors.length}):`);
  console.log('| place | mutator | original | replacement | recorded |');
  console.log('|---|---|---|---|---|');
  for (const mutant of survivors.toSorted((a, b) => keyOf(a).localeCompare(keyOf(b), 'en', { numeric: true })))
    console.log(
      `| \`${mutant.fileName}:${mutant.location.start.line + 1}\` | ${mutant.mutatorName} | ${code(mutant.original)} | ${code(mutant.replacement)} | ${recorded.has(recordKey(mutant)) ? 'yes' : '**no**'} |`,
    );
}

if (values.report) {
  printReport(JSON.parse(readFileSync(values.report, 'utf8')));
  process.exit(0);
}
work = mkdtempSync(join(tmpdir(), 'svc-bench-kill-rate-'));
try {
  // The kit: this checkout's build, or the build of another checkout (`--svc <its bin/run.js>`), copied.
  const kitCheckout = values.svc ? resolve(dirname(values.svc), '..') : root;
  kitBin = join(
    copyOfCheckout(join(work, 'kit'), ['package.json', 'openapi.yaml', 'oclif.manifest.json', 'bin', 'dist', 'contracts'], kitCheckout),
    'bin/run.js',
  );
  kitHasGeneratedChecks = 'seed' in JSON.parse(readFileSync(join(kitCheckout, 'oclif.manifest.json'), 'utf8')).commands['contract:verify'].flags;
  kitRuns = kitRunsOf(kitHasGeneratedChecks);

  log(`instrumenting ${MUTATED.length} modules`);
  const { project, mutants } = await instrument();
  log(`${mutants.length} mutants; building svc from the instrumented sources`);
  const build = await run([join(project, 'scripts/build.js')], { cwd: project, env: process.env, timeoutMs: 600_000 });
  if (build.status !== 0) throw new Error(`the build of the instrumented sources failed: ${build.stderr.slice(-2000)}`);

  const fixtures = join(work, 'fixtures.yaml');
  writeFileSync(fixtures, 'document:\n  encoding: multipart\n');
  // One data directory made once (workspaces, keys, certificate), copied for every sandbox.
  const first = await startSandbox(project, undefined, {});
  if (first.failed) throw new Error(first.failed);
  const template = first.dataDir;
  await first.stop();
  const keysRun = await run([kitBin, 'sandbox', 'keys', '--json', '--reveal', '--data-dir', template], { env: first.env, timeoutMs: 60_000 });
  if (keysRun.status !== 0) throw new Error(`svc sandbox keys failed: ${keysRun.stderr}`);
  const keys = Object.fromEntries(JSON.parse(keysRun.stdout).map((key) => [key.role, key.secret]));

  log('dry run: the instrumented sandbox with no mutant active');
  const coverageFile = join(work, 'coverage.json');
  const dry = await startSandbox(project, template, { coverageFile });
  if (dry.failed) throw new Error(dry.failed);
  const dryStages = [];
  try {
    for (const stage of kitRuns) {
      const outcome = await verify(dry, keys, fixtures, stage, 900_000);
      dryStages.push(outcome);
      if (outcome.status !== 0)
        throw new Error(`the sandbox with no mutant active does not pass the ${stage.name} run: ${outcome.killers.join('; ')}\n${outcome.details.join('\n')}`);
      log(`dry run, ${stage.name}: ${outcome.seconds.toFixed(1)} s, ${outcome.verdict}`);
    }
  } finally {
    await dry.stop();
  }
  const coverage = JSON.parse(readFileSync(coverageFile, 'utf8'));
  const covered = new Set([...Object.keys(coverage.static), ...Object.values(coverage.perTest).flatMap((hits) => Object.keys(hits))]);
  // A run of a mutant may take three times the dry run's, and a minute more.
  const deadlines = Object.fromEntries(dryStages.map((outcome) => [outcome.stage, Math.round(outcome.seconds * 3_000 + 60_000)]));

  const sample = mutants.toSorted((a, b) => sha256(`${values.seed}:${keyOf(a)}`).localeCompare(sha256(`${values.seed}:${keyOf(b)}`))).slice(0, sampleSize);
  const results = new Map();
  for (const mutant of sample) if (!covered.has(mutant.id)) results.set(mutant.id, { status: 'no coverage', killers: [], stages: [] });
  const earlier = new Map(
    values.incremental
      ? JSON.parse(readFileSync(values.incremental, 'utf8'))
          .sampled.filter((mutant) => mutant.status === 'killed' || mutant.status === 'timeout')
          .map((mutant) => [identityOf(mutant), mutant])
      : [],
  );
  let reused = 0;
  for (const mutant of sample) {
    const result = covered.has(mutant.id) && earlier.get(identityOf(mutant));
    if (!result) continue;
    results.set(mutant.id, { status: result.status, killers: result.killers, stages: result.stages, reused: true });
    reused++;
  }
  const queue = sample.filter((mutant) => !results.has(mutant.id));
  log(
    `${covered.size} of ${mutants.length} mutants reached by the dry run; sample of ${sample.length} (seed ${values.seed}): ` +
      `${sample.filter((mutant) => !covered.has(mutant.id)).length} reached by no kit run, ${reused > 0 ? `${reused} killed in ${values.incremental}, ` : ''}` +
      `${queue.length} to run, ${concurrency} at a time`,
  );
  const toRun = queue.length;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let mutant = queue.shift(); mutant; mutant = queue.shift()) {
        const result = await judge(project, template, keys, fixtures, mutant, deadlines);
        results.set(mutant.id, result);
        done++;
        const where = `${mutant.fileName}:${mutant.location.start.line + 1} ${mutant.mutatorName}`;
        log(`${done}/${toRun} ${where}: ${result.status}${result.killers.length > 0 ? ` by ${result.killers.slice(0, 3).join(', ')}` : ''}`);
      }
    }),
  );

  const sampled = sample.map((mutant) => ({ ...mutant, ...results.get(mutant.id) }));
  const out = values.out ?? join(tmpdir(), `svc-kill-rate-${values.seed}.json`);
  const data = {
    seed: values.seed,
    kit: values.svc,
    modules: MUTATED.length,
    mutants: mutants.length,
    minutes: elapsed(),
    incremental: values.incremental,
    dry: dryStages,
    sampled,
  };
  writeFileSync(out, JSON.stringify(data, null, 2));
  printReport(data);
  console.error(`every sampled mutant, with the checks that killed it: ${out} (\`-- --report ${out}\` prints this again)`);
} finally {
  if (!values.keep) rmSync(work, { recursive: true, force: true });
}
