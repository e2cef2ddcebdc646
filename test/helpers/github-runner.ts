/**
 * A composite action run as GitHub's runner runs it, for the steps this machine can run: action.yml
 * parsed with `yaml`; each step in order, stopping at the first that fails; `${{ }}` expressions
 * substituted from the inputs (their defaults where not given), `github.action_path`, `runner.os` and
 * the outputs of earlier steps; each `run:` written to a file and started as the runner starts a bash
 * step (`bash --noprofile --norc -eo pipefail <file>`) in the workspace, with the job's environment,
 * then what earlier steps added to GITHUB_ENV and GITHUB_PATH, then the step's own `env:`; fresh
 * GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH and GITHUB_STEP_SUMMARY files for each step, read after it as
 * the runner reads them. The log is read for workflow commands, honouring `::stop-commands::`.
 *
 * A `uses:` step runs code of another repository: the caller says how to stand in for it (`uses`).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

interface CompositeStep {
  name?: string;
  id?: string;
  uses?: string;
  with?: Record<string, string>;
  shell?: string;
  env?: Record<string, string>;
  run?: string;
}

export interface CompositeAction {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: CompositeStep[] };
}

export interface RunnerFiles {
  actionPath: string;
  workspace: string;
  runnerTemp: string;
}

/** A job of the runner: its environment, and what its steps have added to it so far (GITHUB_ENV, GITHUB_PATH). */
export interface Job {
  env: Record<string, string>;
  addedEnv: Record<string, string>;
  addedPath: string[];
}

export function newJob(env: Record<string, string>): Job {
  return { env, addedEnv: {}, addedPath: [] };
}

/** What stands in for a `uses:` step: given its `with:` evaluated, it returns the directories it adds to PATH. */
export type UsesStep = (inputs: Record<string, string>) => string[];

export interface ActionRun {
  /** The exit code of the last step that ran: the first that failed, or the last of all. */
  status: number | null;
  /** The names (or `uses`) of the steps that ran, in order. */
  ran: string[];
  outputs: Record<string, string>;
  /** The job's summary: every step's GITHUB_STEP_SUMMARY, in order. */
  summary: string;
  /** stdout and stderr of every step, as the runner's log shows them. */
  log: string;
  /** The workflow commands the runner would have acted on (`::name …::`), stop-commands honoured. */
  commands: string[];
}

export function readAction(path: string): CompositeAction {
  return parse(readFileSync(path, 'utf8')) as CompositeAction;
}

/** Reads a file of the runner's (GITHUB_OUTPUT, GITHUB_ENV): `name=value` lines and `name<<DELIMITER` blocks. */
function readEnvironmentFile(path: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = readFileSync(path, 'utf8').split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const block = /^([^=<]+)<<(.+)$/.exec(line);
    if (block) {
      const end = lines.indexOf(block[2]!, index + 1);
      if (end < 0) throw new Error(`no closing ${block[2]} in ${path}`);
      values[block[1]!] = lines.slice(index + 1, end).join('\n');
      index = end;
    } else if (line.includes('=')) {
      values[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    } else if (line !== '') {
      throw new Error(`a line the runner cannot read in ${path}: ${line}`);
    }
  }
  return values;
}

/** Substitutes `${{ name }}` from `context`; an output a step did not set is empty, as the runner evaluates it. */
function substitute(text: string, context: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_match, expression: string) => {
    if (expression in context) return context[expression]!;
    if (/^steps\.[\w-]+\.outputs\.[\w-]+$/.test(expression)) return '';
    throw new Error(`an expression this emulation does not know: ${expression}`);
  });
}

/**
 * Workflow commands in a log, as the runner finds them: a line that starts with `::`, unless commands
 * are stopped. The runner reads a step's output a line at a time with .NET's ReadLine, which ends a
 * line at a bare CR too.
 */
function workflowCommands(log: string): string[] {
  const commands: string[] = [];
  let resumeToken: string | undefined;
  for (const line of log.split(/\r\n|\r|\n/).map((text) => text.trim())) {
    if (resumeToken !== undefined) {
      if (line === `::${resumeToken}::`) resumeToken = undefined;
    } else if (line.startsWith('::stop-commands::')) {
      resumeToken = line.slice('::stop-commands::'.length);
    } else if (line.startsWith('::')) {
      commands.push(line);
    }
  }
  return commands;
}

function runBash(script: string, cwd: string, env: Record<string, string>): Promise<{ status: number | null; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, log }));
  });
}

/**
 * Runs the composite action at `files.actionPath` with `inputs`, as a step of `job`. `from` names the
 * first step to run: a later use of the action in a job whose earlier use set svc up.
 */
export async function runCompositeAction(options: {
  job: Job;
  files: RunnerFiles;
  inputs: Record<string, string>;
  uses: Record<string, UsesStep>;
  from?: string;
}): Promise<ActionRun> {
  const { files, job } = options;
  const action = readAction(join(files.actionPath, 'action.yml'));
  const context: Record<string, string> = { 'github.action_path': files.actionPath, 'runner.os': 'Linux' };
  for (const [name, declared] of Object.entries(action.inputs)) {
    const value = options.inputs[name] ?? declared.default ?? '';
    if (declared.required && value === '') throw new Error(`the input ${name} is required`);
    context[`inputs.${name}`] = value;
  }
  for (const name of Object.keys(options.inputs)) if (!(name in action.inputs)) throw new Error(`the action has no input ${name}`);

  const commandFiles = join(files.runnerTemp, '_runner_file_commands');
  mkdirSync(commandFiles, { recursive: true });
  const run: ActionRun = { status: 0, ran: [], outputs: {}, summary: '', log: '', commands: [] };
  const steps = options.from ? action.runs.steps.slice(action.runs.steps.findIndex((step) => step.name === options.from)) : action.runs.steps;
  for (const [index, step] of steps.entries()) {
    const label = step.name ?? step.uses ?? `step ${index}`;
    run.ran.push(label);
    if (step.uses) {
      const standIn = options.uses[step.uses];
      if (!standIn) throw new Error(`nothing stands in for ${step.uses}`);
      const withInputs = Object.fromEntries(Object.entries(step.with ?? {}).map(([name, value]) => [name, substitute(String(value), context)]));
      job.addedPath.unshift(...standIn(withInputs));
      continue;
    }
    if (step.shell !== 'bash') throw new Error(`${label}: a composite run step needs shell: bash`);
    const file = (name: string) => {
      const path = join(commandFiles, `${name}_${index}`);
      writeFileSync(path, '');
      return path;
    };
    const stepFiles = {
      GITHUB_OUTPUT: file('set_output'),
      GITHUB_ENV: file('set_env'),
      GITHUB_PATH: file('add_path'),
      GITHUB_STEP_SUMMARY: file('step_summary'),
    };
    const script = join(files.runnerTemp, `step-${index}.sh`);
    writeFileSync(script, substitute(step.run!, context));
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, substitute(String(value), context)]));
    const env = {
      ...job.env,
      ...job.addedEnv,
      PATH: [...job.addedPath, job.env.PATH].join(':'),
      GITHUB_ACTION_PATH: files.actionPath,
      GITHUB_WORKSPACE: files.workspace,
      RUNNER_TEMP: files.runnerTemp,
      ...stepFiles,
      ...stepEnv,
    };
    const result = await runBash(script, files.workspace, env);
    run.log += result.log;
    run.status = result.status;
    for (const [name, value] of Object.entries(readEnvironmentFile(stepFiles.GITHUB_OUTPUT))) if (step.id) context[`steps.${step.id}.outputs.${name}`] = value;
    Object.assign(job.addedEnv, readEnvironmentFile(stepFiles.GITHUB_ENV));
    job.addedPath.unshift(...readFileSync(stepFiles.GITHUB_PATH, 'utf8').split('\n').filter(Boolean).reverse());
    run.summary += readFileSync(stepFiles.GITHUB_STEP_SUMMARY, 'utf8');
    if (result.status !== 0) break;
  }
  for (const [name, output] of Object.entries(action.outputs)) run.outputs[name] = substitute(output.value, context);
  run.commands = workflowCommands(run.log);
  return run;
}
