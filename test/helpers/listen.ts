import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { type Receiver, startReceiver } from './receiver.js';
import { isolatedEnv, SVC_BIN } from './svc.js';
import { HANG_MS } from './hang.js';
import { svcInProcess } from './in-process.js';

export interface ListenLine {
  /** A takeover's is 0.1.0's object until 0.3.0 (src/cli/deprecated-json.ts). */
  event: 'delivery' | 'refused' | { id: string | null; type: string | null; resource_id: string | null };
  kind: 'delivery' | 'refused' | 'takeover';
  result?: 'accepted' | 'duplicate' | 'rejected' | 'injected' | 'store_failed';
  event_id?: string | null;
  type?: string | null;
  resource_id?: string | null;
  reason?: string | null;
  status: number | null;
  forward?: { url: string; status: number | null; error: string | null } | null;
  detail?: string | null;
  schema_notes?: string[];
}

/** A `svc webhooks listen --json` that runs, in a process of its own or in the test's. */
export interface ListenRun {
  url: string;
  store: string;
  /** Every JSON line after the ready line, as printed so far. */
  readonly lines: ListenLine[];
  stderr: () => string;
  waitFor(predicate: (lines: ListenLine[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Stops it (the process with `signal`, SIGTERM by default; in the test's process as Ctrl-C) and resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface RunningListen extends ListenRun {
  process: ChildProcessWithoutNullStreams;
}

/** Waits until `done` holds, looking every few milliseconds, for at most `timeoutMs`; `why` says what was awaited. */
async function until(done: () => boolean, timeoutMs: number, why: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(why());
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Starts the real `svc webhooks listen --json` on a free port of 127.0.0.1 and waits for its ready line. */
export async function startListen(args: string[], env: Record<string, string>, store = join(env.HOME!, 'events.db')): Promise<RunningListen> {
  const child = spawn(process.execPath, [SVC_BIN, 'webhooks', 'listen', '--port', '0', '--json', '--store', store, ...args], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const lines: ListenLine[] = [];
  const reader = createInterface({ input: child.stdout });
  const ready = await new Promise<{ url: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc webhooks listen did not start: ${stderr}`)), HANG_MS);
    reader.once('line', (line) => {
      clearTimeout(timer);
      // Anything but the ready line is the start of a pretty-printed error: report it on exit.
      if (line.startsWith('{"event":"ready"')) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`svc webhooks listen exited ${code}: ${stderr}`)));
  });
  reader.on('line', (line) => lines.push(JSON.parse(line)));
  return {
    url: ready.url,
    store,
    process: child,
    lines,
    stderr: () => stderr,
    waitFor: (predicate, timeoutMs = HANG_MS) =>
      until(
        () => predicate(lines),
        timeoutMs,
        () => `timed out waiting for listen; ${lines.length} lines; stderr: ${stderr}`,
      ),
    stop(signal = 'SIGTERM') {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      });
    },
  };
}

/**
 * Runs `svc webhooks listen --json` in the test's process (svcInProcess) on a free port of 127.0.0.1
 * and waits for its ready line; `clock` is its time. It fails as startListen does when the command
 * ends before it is ready ("exited <code>: <stderr>"). Other commands run in-process while it serves
 * run nested in it; two of these stop in the reverse order of their start (each holds the process's environment).
 */
export async function startListenInProcess(
  args: string[],
  env: Record<string, string>,
  store = join(env.HOME!, 'events.db'),
  options: { clock?: Clock } = {},
): Promise<ListenRun> {
  let running: { stdout: () => string; stderr: () => string; interrupt: () => void } | undefined;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let ended = false;
  const run = svcInProcess(['webhooks', 'listen', '--port', '0', '--json', '--store', store, ...args], {
    env,
    clock: options.clock,
    whileRunning: async (started) => {
      running = started;
      await released;
    },
  }).finally(() => (ended = true));
  const printed = () => running?.stdout() ?? '';
  const stderr = () => running?.stderr() ?? '';
  await until(
    () => ended || printed().includes('\n'),
    HANG_MS,
    () => `svc webhooks listen did not start: ${stderr()}`,
  ).catch((error: unknown) => {
    release();
    throw error;
  });
  const first = printed().split('\n')[0]!;
  if (ended || !first.startsWith('{"event":"ready"')) {
    release();
    const result = await run;
    throw new Error(`svc webhooks listen exited ${result.code}: ${result.stderr}`);
  }
  const ready = JSON.parse(first) as { url: string };
  let parsed: ListenLine[] = [];
  const lines = (): ListenLine[] => {
    const complete = printed().split('\n').slice(1, -1);
    if (complete.length !== parsed.length) parsed = complete.map((line) => JSON.parse(line) as ListenLine);
    return parsed;
  };
  return {
    url: ready.url,
    store,
    get lines() {
      return lines();
    },
    stderr,
    waitFor: (predicate, timeoutMs = HANG_MS) =>
      until(
        () => predicate(lines()),
        timeoutMs,
        () => `timed out waiting for listen; ${lines().length} lines; stderr: ${stderr()}`,
      ),
    async stop() {
      if (!ended) running!.interrupt();
      release();
      return (await run).code;
    },
  };
}

/**
 * `listen` (the real `svc webhooks listen`, verifying with `secret`, in a process of its own or, with
 * `start` startListenInProcess, in the test's) and `recorder` (an application
 * it forwards to), each stopped when the test that started it ends, the last started first, as is
 * whatever else a test hands to `stopAfterTest`.
 */
export function stoppedAfterEachTest<Run extends ListenRun = RunningListen>(
  secret: string,
  start: (args: string[], env: Record<string, string>, store?: string) => Promise<Run> = startListen as never,
): {
  listen(args?: string[], env?: Record<string, string>, store?: string): Promise<Run>;
  recorder(): Promise<Receiver>;
  stopAfterTest(stop: () => Promise<unknown>): void;
} {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    stopAfterTest: (stop) => void cleanups.push(stop),
    async listen(args = [], env = isolatedEnv({ SVC_WEBHOOK_SECRET: secret }), store) {
      const running = await start(args, env, store);
      cleanups.push(() => running.stop());
      return running;
    },
    async recorder() {
      const started = await startReceiver();
      cleanups.push(() => started.close());
      return started;
    },
  };
}
