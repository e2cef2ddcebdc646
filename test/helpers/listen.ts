import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach } from 'vitest';
import { type Receiver, startReceiver } from './receiver.js';
import { isolatedEnv, SVC_BIN } from './svc.js';
import { HANG_MS } from './hang.js';

export interface ListenLine {
  event: 'delivery' | 'refused' | 'takeover';
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

export interface RunningListen {
  url: string;
  store: string;
  process: ChildProcessWithoutNullStreams;
  /** Every JSON line after the ready line, as printed so far. */
  lines: ListenLine[];
  stderr: () => string;
  waitFor(predicate: (lines: ListenLine[]) => boolean, timeoutMs?: number): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
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
    async waitFor(predicate, timeoutMs = HANG_MS) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(lines)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for listen; ${lines.length} lines; stderr: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
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
 * `listen` (the real `svc webhooks listen`, verifying with `secret`) and `recorder` (an application
 * it forwards to), each stopped when the test that started it ends, the last started first, as is
 * whatever else a test hands to `stopAfterTest`.
 */
export function stoppedAfterEachTest(secret: string): {
  listen(args?: string[], env?: Record<string, string>, store?: string): Promise<RunningListen>;
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
      const running = await startListen(args, env, store);
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
