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

// The environment each output stream is written under (NO_COLOR, TERM), so that what renders to a
// stream can tell how without reading the process's.
const environments = new WeakMap<object, NodeJS.ProcessEnv>();

/** An io of these streams and environment. */
export function createIo(io: Io): Io {
  environments.set(io.stdout, io.env);
  environments.set(io.stderr, io.env);
  return io;
}

export function processIo(): Io {
  return createIo({ stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });
}

/** The environment `stream` is written under: its io's. */
export function environmentOf(stream: object): NodeJS.ProcessEnv {
  return environments.get(stream) ?? {};
}

/** Whether a person can be asked: stdin is a terminal, and this is not CI. */
export function canPrompt(io: Io): boolean {
  return Boolean(io.stdin.isTTY) && io.env.CI !== 'true';
}

/** Where a live display is wanted: both streams a terminal (so it is a person watching), not CI, not a dumb terminal. */
export function showsLiveProgress(io: Io): boolean {
  return Boolean(io.stdout.isTTY && io.stderr.isTTY) && io.env.CI !== 'true' && io.env.TERM !== 'dumb';
}
