import type { Readable } from 'node:stream';

/**
 * What a command talks through: its three streams and the environment that says how to use them.
 * A command's `io` is the process's own; an in-process test gives streams of its own.
 */
export interface Io {
  readonly stdin: Readable & { isTTY?: boolean };
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly env: NodeJS.ProcessEnv;
}

export function processIo(): Io {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/** Whether a person can be asked: stdin is a terminal, and this is not CI. */
export function canPrompt(io: Io): boolean {
  return Boolean(io.stdin.isTTY) && io.env.CI !== 'true';
}

/** Where a live display is wanted: both streams a terminal (so it is a person watching), not CI, not a dumb terminal. */
export function showsLiveProgress(io: Io): boolean {
  return Boolean(io.stdout.isTTY && io.stderr.isTTY) && io.env.CI !== 'true' && io.env.TERM !== 'dumb';
}
