// The script of svc's GitHub Action (action.yml): runs `svc contract verify` with the action's inputs,
// writes the verdict and the checks that did not pass to the job's summary ($GITHUB_STEP_SUMMARY), and
// exits with svc's exit code. The JUnit report stays where the `junit` input put it, for a test reporter.
// Inputs arrive as GitHub passes them to a step, INPUT_<NAME> in the environment; the keys arrive as
// svc's own SVC_* variables and never reach a command line.
// Usage (what action.yml runs): node scripts/github-action.js
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const input = (name) => process.env[`INPUT_${name.toUpperCase().replace(/[ -]/g, '_')}`]?.trim() ?? '';

/** svc's flags from the action's inputs: a text input gives `--flag value`, a true boolean `--flag`. */
function verifyArguments() {
  const args = ['contract', 'verify', '--json'];
  for (const name of ['base-url', 'level', 'fixtures', 'junit', 'ca-cert', 'only', 'webhook-port', 'webhook-host', 'revocable-key-id']) {
    const value = input(name);
    if (value) args.push(`--${name}`, value);
  }
  for (const name of ['fast', 'webhook-tls', 'insecure']) if (input(name) === 'true') args.push(`--${name}`);
  return args;
}

/** Table cells hold one line, and a pipe would end the cell. */
const cell = (text) => String(text).replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');

/** The summary's Markdown: the verdict and its counts, then each check that failed or could not be judged. */
function summaryOf(result) {
  const lines = [
    '## svc contract verify',
    '',
    `**${result.verdict}** at level ${result.level} against ${result.run.base_url}`,
    '',
    '| passed | failed | inconclusive | skipped |',
    '|---|---|---|---|',
    `| ${result.passed} | ${result.failed} | ${result.inconclusive} | ${result.skipped} |`,
  ];
  const notPassed = result.checks.filter((check) => check.status === 'failed' || check.status === 'inconclusive');
  if (notPassed.length > 0) {
    lines.push('', '| check | part | status | detail |', '|---|---|---|---|');
    for (const check of notPassed) lines.push(`| ${cell(check.id)}: ${cell(check.title)} | ${cell(check.spec)} | ${check.status} | ${cell(check.detail)} |`);
  }
  return `${lines.join('\n')}\n`;
}

function errorSummary(error, exitCode) {
  return `## svc contract verify\n\n**could not run** (exit code ${exitCode}): ${cell(error.message)}${error.hint ? `\n\n${cell(error.hint)}` : ''}\n`;
}

// An input left out reaches the step as an empty variable, which svc would take as an empty key.
const env = Object.fromEntries(Object.entries(process.env).filter(([name, value]) => !(name.startsWith('SVC_') && value === '')));
const child = spawn('svc', verifyArguments(), { stdio: ['ignore', 'pipe', 'inherit'], env });
let stdout = '';
child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
child.on('error', (error) => {
  console.error(`svc could not start: ${error.message} (is it installed and on PATH?)`);
  process.exit(1);
});
child.on('close', (code) => {
  const exitCode = code ?? 1;
  let json;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  const summary = json?.verdict
    ? summaryOf(json)
    : json?.error
      ? errorSummary(json.error, exitCode)
      : `## svc contract verify\n\n**could not run** (exit code ${exitCode})\n`;
  if (process.env.GITHUB_STEP_SUMMARY) appendFileSync(process.env.GITHUB_STEP_SUMMARY, summary);
  process.stdout.write(summary);
  process.exit(exitCode);
});
