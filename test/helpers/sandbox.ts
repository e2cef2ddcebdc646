import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Agent } from 'undici';
import { networkOf } from '../../src/api/network.js';
import { pathsOf } from '../../src/config/paths.js';
import { defaultSandboxDir, writeSandboxProfile } from '../../src/sandbox/profile.js';
import { type SandboxOptions, startSandbox } from '../../src/sandbox/server.js';
import { isolatedEnv, runSvc, SVC_BIN } from './svc.js';
import { HANG_MS } from './hang.js';

type Role = 'test' | 'read_only' | 'ip_locked' | 'admin' | 'other_workspace' | 'other_workspace_admin' | 'webhook_secret';

export interface RunningSandbox {
  url: string;
  port: number;
  dataDir: string;
  caCert: string;
  keys: Record<Role, string>;
  /** The environment of the user who started it: `svc` run with it talks to this sandbox. */
  env: Record<string, string>;
  process: ChildProcessWithoutNullStreams;
  stderr: () => string;
  /** HTTPS requests that trust the sandbox's certificate. */
  fetch(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** What a test uses of a sandbox, wherever it runs. */
export type TestSandbox = Omit<RunningSandbox, 'process' | 'stop'>;

/** A sandbox in the test's own process: what the in-process tier starts instead of `svc sandbox start`. */
export interface InProcessSandbox extends TestSandbox {
  stop(): Promise<void>;
}

/** HTTPS requests to `url` that trust `caCert` and bear `defaultKey` unless told otherwise. */
function fetchFrom(url: string, caCert: string, defaultKey: string): RunningSandbox['fetch'] {
  const dispatcher = new Agent({ connect: { ca: readFileSync(caCert, 'utf8') } });
  return (path, init = {}) => {
    const { key = defaultKey, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (key !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${key}`);
    return fetch(`${url}${path}`, { ...rest, headers, dispatcher });
  };
}

/**
 * Starts the sandbox of src/sandbox/server.ts in this process on a free port, as `svc sandbox start`
 * does (its `sandbox` profile written in `env`'s configuration): options as the command's flags give
 * them, an analysis delay of 100 ms unless told otherwise.
 */
export async function startSandboxInProcess(
  options: Partial<Omit<SandboxOptions, 'dataDir' | 'port' | 'network'>> = {},
  env: Record<string, string> = isolatedEnv(),
): Promise<InProcessSandbox> {
  const dataDir = defaultSandboxDir(pathsOf(env));
  let log = '';
  const sandbox = await startSandbox({ analysisDelayMs: 100, log: (line) => (log += `${line}\n`), ...options, dataDir, port: 0, network: networkOf(env) });
  await writeSandboxProfile(sandbox, pathsOf(env));
  const keys = Object.fromEntries(sandbox.store.sandboxKeys().map(({ role, secret }) => [role, secret])) as Record<Role, string>;
  keys.webhook_secret = sandbox.webhookSecret;
  return {
    url: sandbox.url,
    port: sandbox.port,
    dataDir,
    caCert: sandbox.certPath,
    keys,
    env: { ...env, SVC_PROFILE: 'sandbox' },
    stderr: () => log,
    fetch: fetchFrom(sandbox.url, sandbox.certPath, keys.test),
    stop: () => sandbox.close(),
  };
}

/**
 * Starts the real `svc sandbox start` as a child process (on a free port unless `args` give one) and waits until it is ready;
 * its data in `dataDir` (the default one of `env` when not given), its profile in `env`'s configuration.
 */
export async function startSandboxProcess(
  args: string[] = [],
  env: Record<string, string> = isolatedEnv(),
  dataDir = defaultSandboxDir(pathsOf(env)),
): Promise<RunningSandbox> {
  const port = args.includes('--port') ? [] : ['--port', '0'];
  const analysisDelay = args.includes('--analysis-delay') ? [] : ['--analysis-delay', '100'];
  const child = spawn(process.execPath, [SVC_BIN, 'sandbox', 'start', ...port, '--json', '--data-dir', dataDir, ...analysisDelay, ...args], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout });
  const ready = await new Promise<{ url: string; port: number; ca_cert: string; profile: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the sandbox did not start: ${stderr}`)), HANG_MS);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`the sandbox exited ${code}: ${stderr}`)));
  });
  const listed = await runSvc(['sandbox', 'keys', '--json', '--reveal', '--data-dir', dataDir], { env });
  const keys = Object.fromEntries((JSON.parse(listed.stdout) as Array<{ role: Role; secret: string }>).map((key) => [key.role, key.secret])) as Record<
    Role,
    string
  >;
  const caCert = ready.ca_cert;
  return {
    url: ready.url,
    port: ready.port,
    dataDir,
    caCert,
    keys,
    env: { ...env, SVC_PROFILE: ready.profile },
    process: child,
    stderr: () => stderr,
    fetch: fetchFrom(ready.url, caCert, keys.test),
    stop(signal = 'SIGTERM') {
      return new Promise((resolve, reject) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        const hung = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`the sandbox did not stop on ${signal}: ${stderr}`));
        }, HANG_MS);
        child.once('exit', (code) => {
          clearTimeout(hung);
          resolve(code);
        });
        child.kill(signal);
      });
    },
  };
}
