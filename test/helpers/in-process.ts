/**
 * Runs a command of src/commands in the test's own process, as oclif would (parse, run, --json,
 * the error model and exit code), with streams of the test's own for its io and a stub for its
 * prompts. The outer ring of tests runs the real binary; this one is the fast inner ring.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Config } from '@oclif/core';
import type { SvcCommand } from '../../src/cli/base-command.js';
import { Io } from '../../src/ui/io.js';
import type { Clock } from '../../src/core/clock.js';
import type { Prompter } from '../../src/ui/prompter.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const commandsDir = join(root, 'src', 'commands');
let config: Promise<Config> | undefined;

/** Every command's file under src/commands by its oclif id (`sandbox/deliveries/index.ts` is `sandbox:deliveries`). */
const COMMAND_FILES = new Map(
  readdirSync(commandsDir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => [file.replace(/(\/index)?\.ts$/, '').replaceAll('/', ':'), join(commandsDir, file)]),
);

async function commandOf(id: string): Promise<CommandClass> {
  const Command = ((await import(pathToFileURL(COMMAND_FILES.get(id)!).href)) as { default: CommandClass }).default;
  // oclif gives a command its id when it loads it; the constructor reads it from there.
  Command.id = id;
  return Command;
}

/** The id of a command class given directly, as oclif would have set it. */
async function idOf(Command: CommandClass): Promise<string> {
  for (const id of COMMAND_FILES.keys()) if ((await commandOf(id)) === Command) return id;
  throw new Error(`${Command.name} is not a command of src/commands (${relative(root, commandsDir)})`);
}

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
    whileRunning?: (running: { stdout: () => string; stderr: () => string; interrupt: () => void }) => Promise<void>;
  },
): Promise<InProcessResult> {
  config ??= Config.load({ root });
  Command.id ??= await idOf(Command);
  ranCommands.add(Command);
  const stdout = capture(options.terminal);
  const stderr = capture(options.terminal);
  const stdin = Object.assign(Readable.from(options.stdin === undefined ? [] : [options.stdin]), { isTTY: options.terminal !== undefined });
  const env: NodeJS.ProcessEnv = { ...options.env };
  // A person at a terminal is not a CI job, even when these tests run in one.
  if (options.terminal) delete env.CI;
  const savedEnv = process.env;
  const savedExitCode = process.exitCode;
  const ownEnv = flagVariables(Command, options.env);
  process.env = ownEnv;
  process.exitCode = undefined;
  let code: number;
  let overlapped: boolean;
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
      await Promise.race([options.whileRunning({ stdout: stdout.text, stderr: stderr.text, interrupt: () => command['interrupt']() }), stopped]);
    }
    await done;
    code = command.exitCode;
  } catch (error) {
    const exit = (error as { oclif?: { exit?: number } }).oclif?.exit;
    if (exit === undefined) stderr.stream.write(`${(error as Error).message}\n`);
    code = exit ?? 1;
  } finally {
    overlapped = process.env !== ownEnv;
    process.env = savedEnv;
    process.exitCode = savedExitCode;
  }
  // Runs nest (a command run while another serves) but never overlap otherwise: each holds the process's environment.
  if (overlapped) throw new Error(`svc ${Command.id} ran beside another command that began before it and ended after: run them one after the other`);
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/**
 * Runs `svc ...args` in this process, as runSvc runs the binary: the command found by its words, as
 * oclif finds it, and run by runInProcess with `input` on stdin.
 */
export async function svcInProcess(args: string[], options: Omit<Parameters<typeof runInProcess>[2], 'stdin'> & { input?: string }): Promise<InProcessResult> {
  const words = args.findIndex((arg) => arg.startsWith('-'));
  const candidates = args.slice(0, words === -1 ? args.length : words);
  for (let length = candidates.length; length > 0; length--) {
    const id = candidates.slice(0, length).join(':');
    if (COMMAND_FILES.has(id)) {
      const { input, ...rest } = options;
      return runInProcess(await commandOf(id), args.slice(length), { ...rest, stdin: input });
    }
  }
  throw new Error(`svc ${args.join(' ')}: no command of src/commands has these words`);
}
