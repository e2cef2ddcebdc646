import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SVC_BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url));

export interface SvcResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A proxy setting of the developer's shell: tests talk to loopback only, through a proxy only where one of theirs is set. */
const PROXY_VARIABLE = /^(https?|no|all)_proxy$/i;

/** A home of its own (config, data, state) and no SVC_* variable nor proxy from the developer's shell. */
export function isolatedEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SVC_') && !PROXY_VARIABLE.test(name))) as Record<
    string,
    string
  >;
  return {
    ...inherited,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_STATE_HOME: join(home, 'state'),
    NO_COLOR: '1',
    ...extra,
  };
}

/**
 * Runs the real `svc` binary as a user would, with no terminal. With `killAfterMs`, a run that has
 * not ended by then is killed (its code is then null), so that a hang fails a test and leaves nothing running.
 * `onSpawn` gets its process id, and `onStderr` all it has written to stderr at each write, for tests
 * that watch what it does while it runs.
 */
export function runSvc(
  args: string[],
  options: {
    env: Record<string, string>;
    input?: string;
    killAfterMs?: number;
    /** Kills the run when aborted, as `killAfterMs` does when its time is up. */
    signal?: AbortSignal;
    onSpawn?: (pid: number) => void;
    onStderr?: (text: string) => void;
  },
): Promise<SvcResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], {
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.killAfterMs,
      signal: options.signal,
      killSignal: 'SIGKILL',
    });
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      options.onStderr?.(stderr);
    });
    child.on('error', (error) => {
      if (error.name !== 'AbortError') reject(error);
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
