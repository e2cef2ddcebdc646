/**
 * Runs a command of src/commands in the test's own process, as oclif would (parse, run, --json,
 * the error model and exit code), with streams of the test's own for its io and a stub for its
 * prompts. The outer ring of tests runs the real binary; this one is the fast inner ring.
 */
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Config } from '@oclif/core';
import type { SvcCommand } from '../../src/cli/base-command.js';
import { Io } from '../../src/ui/io.js';
import type { Clock } from '../../src/core/clock.js';
import type { Prompter } from '../../src/ui/prompter.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let config: Promise<Config> | undefined;

/** A command class, as src/commands exports it. */
type CommandClass = (new (argv: string[], config: Config) => SvcCommand<unknown, unknown>) & {
  id?: string;
  flags?: Record<string, { env?: string }>;
  baseFlags?: Record<string, { env?: string }>;
};

/**
 * The part of `env` that oclif's parser reads from the process's environment: the variables of the
 * command's flags (`env:` of a flag). Everything else svc reads from the command's `io.env`, so the
 * process is given nothing more: a read of the process's environment by svc's own code finds nothing.
 */
function flagVariables(Command: CommandClass, env: Record<string, string>): NodeJS.ProcessEnv {
  const names = Object.values({ ...Command.baseFlags, ...Command.flags }).flatMap((flag) => (flag.env ? [flag.env] : []));
  return Object.fromEntries(names.filter((name) => env[name] !== undefined).map((name) => [name, env[name]]));
}

/** The commands this process has run, for a test that every command is run. */
export const ranCommands = new Set<CommandClass>();

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A stream that keeps what is written to it, and says it is a terminal of `columns` when asked to. */
function capture(terminal: { columns: number } | undefined): { stream: NodeJS.WriteStream; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  Object.assign(stream, terminal ? { isTTY: true, columns: terminal.columns } : { isTTY: false });
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text };
}

/** A prompter that fails the test if the command asks anything: for runs where nobody is there. */
const NOBODY: Prompter = {
  input: (message) => Promise.reject(new Error(`the command asked "${message}" with nobody to answer`)),
  select: (message) => Promise.reject(new Error(`the command asked "${message}" with nobody to answer`)),
  secret: (message) => Promise.reject(new Error(`the command asked "${message}" with nobody to answer`)),
  confirm: (message) => Promise.reject(new Error(`the command asked "${message}" with nobody to answer`)),
};

/**
 * Runs `Command` with `argv` in this process. `env` is the command's environment (its `io.env`:
 * svc reads its configuration, directories and keys from it), and the process's holds only the
 * flags' variables of it for the run (see flagVariables); `stdin` is what is piped in; `terminal`
 * makes stdin, stdout and stderr a terminal of that width; `prompter` answers the questions.
 */
export async function runInProcess(
  Command: CommandClass,
  argv: string[],
  options: {
    env: Record<string, string>;
    stdin?: string;
    terminal?: { columns: number };
    prompter?: Prompter;
    /** The run's time (the system's when not given). */
    clock?: Clock;
    /** For a command that serves until stopped: called while it runs, with what it printed so far and a Ctrl-C. */
    whileRunning?: (running: { stdout: () => string; interrupt: () => void }) => Promise<void>;
  },
): Promise<InProcessResult> {
  config ??= Config.load({ root });
  ranCommands.add(Command);
  const stdout = capture(options.terminal);
  const stderr = capture(options.terminal);
  const stdin = Object.assign(Readable.from(options.stdin === undefined ? [] : [options.stdin]), { isTTY: options.terminal !== undefined });
  const env: NodeJS.ProcessEnv = { ...options.env };
  // A person at a terminal is not a CI job, even when these tests run in one.
  if (options.terminal) delete env.CI;
  const savedEnv = process.env;
  const savedExitCode = process.exitCode;
  process.env = flagVariables(Command, options.env);
  process.exitCode = undefined;
  let code: number;
  try {
    const command = new Command(argv, await config);
    command.io = new Io(stdin, stdout.stream, stderr.stream, env);
    command.prompter = options.prompter ?? NOBODY;
    if (options.clock) command.clock = options.clock;
    const done = command['_run']();
    if (options.whileRunning) {
      // The run fails the same way whether the test or the command gives up first.
      const stopped = done.then(
        () => undefined,
        () => undefined,
      );
      await Promise.race([options.whileRunning({ stdout: stdout.text, interrupt: () => command['interrupt']() }), stopped]);
    }
    await done;
    code = Number(process.exitCode ?? 0);
  } catch (error) {
    const exit = (error as { oclif?: { exit?: number } }).oclif?.exit;
    if (exit === undefined) stderr.stream.write(`${(error as Error).message}\n`);
    code = exit ?? 1;
  } finally {
    process.env = savedEnv;
    process.exitCode = savedExitCode;
  }
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
