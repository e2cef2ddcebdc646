/**
 * The script of svc's GitHub Action (action.yml's step "svc contract verify"), built to
 * dist/ci/github-action.js and run from the svc the action installed: runs `svc contract verify
 * --json` with the action's inputs, sets the step's outputs (verdict, the counts, the JUnit report's
 * path), writes the verdict and every check that failed, was inconclusive or was skipped, with why,
 * to the job's summary, leaves a JUnit report whatever happened, and exits with svc's exit code.
 *
 * It reads only the variables the step sets from the action's declared inputs (INPUT_<NAME>, each
 * always set, empty when not given): one the step does not set is an error, so that a variable of the
 * same name in the job's environment (an INPUT_INSECURE) can never stand in for an input. The keys
 * arrive as svc's own SVC_* variables and never reach a command line. Everything svc and the
 * implementation said reaches the log with its controls shown as escapes and workflow commands off,
 * and the summary as inert Markdown.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ConformanceJson } from '../conformance/report.js';
import { runErrorJunit } from '../conformance/run-error-report.js';
import { ExitCode } from '../core/errors.js';
import { redactText } from '../core/redaction.js';
import { markdownText } from '../ui/markdown-text.js';
import { terminalText } from '../ui/terminal-text.js';

/** The action's inputs svc takes as `--<name> <value>`. */
const TEXT_INPUTS = [
  'base-url',
  'level',
  'fixtures',
  'ca-cert',
  'client-cert',
  'client-key',
  'only',
  'exclude',
  'rate-limit',
  'rate-limit-reserve',
  'webhook-port',
  'webhook-host',
  'revocable-key-id',
] as const;
/** The action's inputs svc takes as a switch, `--<name>` when the input is true. */
const SWITCH_INPUTS = ['fast', 'provoke-429', 'insecure', 'webhook-tls'] as const;
/** The action's secret inputs, as the step maps them to svc's own variables. */
const KEY_VARIABLES = [
  'SVC_API_KEY',
  'SVC_ADMIN_KEY',
  'SVC_READ_ONLY_KEY',
  'SVC_IP_LOCKED_KEY',
  'SVC_OTHER_WORKSPACE_KEY',
  'SVC_OTHER_WORKSPACE_ADMIN_KEY',
  'SVC_REVOCABLE_KEY',
  'SVC_RATE_LIMIT_KEY',
  'SVC_WEBHOOK_SECRET',
] as const;
const SVC_BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
/** A cell of the summary shows at most this much of a detail: the JUnit report and --json have it whole. */
const CELL_LENGTH = 400;

type Verdict = 'conforms' | 'does-not-conform' | 'inconclusive' | 'error';

/** A usage error of the action itself, before svc runs: an input it cannot take. */
class InputError extends Error {}

function input(name: string): string {
  const variable = `INPUT_${name.toUpperCase().replace(/-/g, '_')}`;
  const value = process.env[variable];
  if (value === undefined) throw new InputError(`the step does not set ${variable}: action.yml must map the input ${name} to it`);
  return value.trim();
}

function switchInput(name: string): boolean {
  const value = input(name).toLowerCase();
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  throw new InputError(`the input ${name} is true or false, not ${JSON.stringify(value)}`);
}

function verifyArguments(junit: string): string[] {
  const args = ['contract', 'verify', '--json', '--junit', junit];
  for (const name of TEXT_INPUTS) {
    const value = input(name);
    if (value) args.push(`--${name}`, value);
  }
  for (const name of SWITCH_INPUTS) if (switchInput(name)) args.push(`--${name}`);
  return args;
}

/**
 * svc's environment: the job's, without any SVC_* or INPUT_* variable but the keys the step set from
 * the action's inputs, those left out (empty) dropped too, which svc would take as empty keys.
 */
function svcEnvironment(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(SVC|INPUT)_/i.test(name)));
  for (const name of KEY_VARIABLES) if (process.env[name]) env[name] = process.env[name];
  return env;
}

const keys = () => KEY_VARIABLES.flatMap((name) => (process.env[name] ? [process.env[name]] : []));

function cell(text: string): string {
  return markdownText(text.length > CELL_LENGTH ? `${text.slice(0, CELL_LENGTH)}…` : text);
}

function checkTable(title: string, column: string, checks: ConformanceJson['checks']): string[] {
  if (checks.length === 0) return [];
  return [
    '',
    `### ${title}`,
    '',
    `| check | part | ${column} |`,
    '|---|---|---|',
    ...checks.map((check) => `| ${cell(check.id)}: ${cell(check.title)} | ${cell(check.spec)} | ${cell(check.detail)} |`),
  ];
}

function resultSummary(result: ConformanceJson): string {
  const total = result.checks.length;
  const ran = total - result.skipped;
  const withStatus = (status: string) => result.checks.filter((check) => check.status === status);
  return [
    '## svc contract verify',
    '',
    `**${result.verdict}** at level ${cell(result.level)} against ${cell(result.run.base_url)}: ${ran} of ${total} checks ran, ${result.skipped} were skipped`,
    '',
    '| passed | failed | inconclusive | skipped |',
    '|---|---|---|---|',
    `| ${result.passed} | ${result.failed} | ${result.inconclusive} | ${result.skipped} |`,
    ...checkTable('Failed', 'what came back', withStatus('failed')),
    ...checkTable('Inconclusive: the kit could not judge', 'why', withStatus('inconclusive')),
    ...checkTable('Skipped: not checked, for want of an input', 'what it needs', withStatus('skipped')),
    '',
  ].join('\n');
}

function errorSummary(exitCode: number, message: string, hint: string | undefined): string {
  const lines = ['## svc contract verify', '', `**error**: no verdict (exit code ${exitCode}): ${cell(message)}`];
  if (hint) lines.push('', cell(hint));
  return `${lines.join('\n')}\n`;
}

/** Appends `name=value` pairs to a file of the runner's (GITHUB_OUTPUT), each value between delimiters of its own. */
function writeOutputs(outputs: Record<string, string | number>): void {
  const file = process.env.GITHUB_OUTPUT;
  if (!file) return;
  const delimiter = `ghadelimiter_${randomUUID()}`;
  appendFileSync(
    file,
    Object.entries(outputs)
      .map(([name, value]) => `${name}<<${delimiter}\n${value}\n${delimiter}\n`)
      .join(''),
  );
}

/**
 * Runs svc with workflow commands off: nothing it or the implementation says can act on the runner.
 * They are stopped and resumed on stderr, the stream svc's lines are copied to, so that the runner
 * reads them in that order.
 */
function runSvc(args: string[]): Promise<{ exitCode: number; stdout: string; lastStderrLine: string }> {
  const resumeToken = randomUUID();
  process.stderr.write(`::stop-commands::${resumeToken}\n`);
  return new Promise((done) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: svcEnvironment() });
    let stdout = '';
    let lastStderrLine = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    createInterface({ input: child.stderr }).on('line', (line) => {
      if (line.trim()) lastStderrLine = line;
      process.stderr.write(`${terminalText(line)}\n`);
    });
    child.on('error', (error) => {
      lastStderrLine = `svc could not start: ${error.message}`;
    });
    child.on('close', (code) => {
      process.stderr.write(`::${resumeToken}::\n`);
      done({ exitCode: code ?? 1, stdout, lastStderrLine });
    });
  });
}

function parsed(stdout: string): Partial<ConformanceJson> & { error?: { message: string; hint?: string } } {
  try {
    return JSON.parse(stdout) as ReturnType<typeof parsed>;
  } catch {
    return {};
  }
}

async function main(): Promise<number> {
  let junit = resolve('contract.xml');
  let exitCode: number;
  let json: ReturnType<typeof parsed>;
  let lastStderrLine = '';
  try {
    junit = resolve(input('junit') || 'contract.xml');
    // A report left by an earlier run on this runner must not pass for this run's.
    rmSync(junit, { force: true });
    const run = await runSvc(verifyArguments(junit));
    ({ exitCode, lastStderrLine } = run);
    json = parsed(run.stdout);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    exitCode = ExitCode.usage;
    json = { error: { message: error.message } };
  }

  const result = json.verdict ? (json as ConformanceJson) : undefined;
  const verdict: Verdict = result ? (result.verdict.replace(/ /g, '-') as Verdict) : 'error';
  const message = redactText(json.error?.message ?? (lastStderrLine || `svc exited with code ${exitCode}`), keys());
  if (!existsSync(junit)) writeFileSync(junit, runErrorJunit(exitCode, message));
  writeOutputs({
    verdict,
    passed: result?.passed ?? 0,
    failed: result?.failed ?? 0,
    inconclusive: result?.inconclusive ?? 0,
    skipped: result?.skipped ?? 0,
    junit,
  });
  const summary = result ? resultSummary(result) : errorSummary(exitCode, message, json.error?.hint && redactText(json.error.hint, keys()));
  if (process.env.GITHUB_STEP_SUMMARY) appendFileSync(process.env.GITHUB_STEP_SUMMARY, summary);
  process.stdout.write(summary);
  return exitCode;
}

process.exitCode = await main();
