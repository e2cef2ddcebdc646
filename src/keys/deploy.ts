import type { Writable } from 'node:stream';
import { spawn } from 'node:child_process';
import { environmentWithoutSvc } from '../core/child-environment.js';
import { copyRedacted } from '../core/child-output.js';
import { SvcError } from '../core/errors.js';

/**
 * How long output is still copied once the deploy command has exited: a process it started in the
 * background may hold its stdout open for as long as it runs.
 */
const OUTPUT_AFTER_EXIT_MS = 1000;

/**
 * The shell that starts the deploy command first reads the line `ready`, which svc writes in the same
 * write as the key: a svc killed between starting it and writing (OOM, SIGKILL) leaves it at end of
 * file, and the command is not run at all, where it would have deployed an empty key.
 */
const AFTER_THE_KEY = 'IFS= read -r line && [ "$line" = ready ] || exit 1; exec /bin/sh -c "$1"';

/** How svc starts the operator's commands: from `env` (the command's own, less svc's variables), their output to `output` with `secrets` redacted, ended by an abort of `signal`. */
interface ChildOptions {
  env: NodeJS.ProcessEnv;
  secrets: readonly string[];
  output: Writable;
  signal: AbortSignal;
}

function deployEnvironment(env: NodeJS.ProcessEnv, secret: string, newKeyId: string): NodeJS.ProcessEnv {
  return { ...environmentWithoutSvc(env), SVC_NEW_API_KEY: secret, SVC_NEW_KEY_ID: newKeyId };
}

/**
 * Runs the operator's deploy command through the shell with the new key in SVC_NEW_API_KEY and on
 * stdin (one line), never in its argv, and none of svc's own variables. Its stdout and stderr go
 * to `output` (svc's stderr), so `--json` output stays machine-readable, redacted of the new key and of
 * `secrets` (a `set -x` would print the key). A Ctrl-C reaches it (same process group); an abort
 * of `signal` ends it too.
 */
export async function runDeployCommand(command: string, secret: string, newKeyId: string, options: ChildOptions): Promise<void> {
  const { secrets, output, signal } = options;
  const child = spawn('/bin/sh', ['-c', AFTER_THE_KEY, 'svc-deploy', command], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: deployEnvironment(options.env, secret, newKeyId),
  });
  const redacted = [...secrets, secret];
  const copies = [copyRedacted(child.stdout, output, redacted), copyRedacted(child.stderr, output, redacted)];
  // A shell that could not start fails the write: its exit says so.
  child.stdin.on('error', () => undefined);
  child.stdin.end(`ready\n${secret}\n`);
  const stop = () => child.kill('SIGTERM');
  signal.addEventListener('abort', stop, { once: true });
  try {
    const [code, killedBy] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (exitCode, signalName) => resolve([exitCode, signalName]));
    });
    const cutOff = setTimeout(() => copies.forEach((copy) => copy.stop()), OUTPUT_AFTER_EXIT_MS);
    await Promise.all(copies.map((copy) => copy.done));
    clearTimeout(cutOff);
    signal.throwIfAborted();
    if (code === 0) return;
    throw new SvcError(
      'rotationStepFailed',
      'deploy_failed',
      `the deploy command ${killedBy ? `was killed by ${killedBy}` : `exited with code ${code}`}`,
      'fix it and resume with `svc keys rotate --resume` (--deploy-cmd there replaces the command); it will ask before deploying again',
    );
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

/**
 * Runs the user's drain check command once through the shell: exit 0 means the old key has no
 * traffic. It gets the keys' ids (SVC_OLD_KEY_ID, SVC_NEW_KEY_ID where known), never a secret, nor
 * svc's own variables; its output goes to `output` (svc's stderr), `secrets` redacted. Answers its exit code
 * (null when a signal ended it).
 */
export async function runDrainCheck(command: string, keys: { oldKeyId: string; newKeyId: string | null }, options: ChildOptions): Promise<number | null> {
  const { secrets, output, signal } = options;
  const env = { ...environmentWithoutSvc(options.env), SVC_OLD_KEY_ID: keys.oldKeyId, ...(keys.newKeyId && { SVC_NEW_KEY_ID: keys.newKeyId }) };
  const child = spawn(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  const copies = [copyRedacted(child.stdout, output, secrets), copyRedacted(child.stderr, output, secrets)];
  const stop = () => child.kill('SIGTERM');
  signal.addEventListener('abort', stop, { once: true });
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (exitCode) => resolve(exitCode));
    });
    const cutOff = setTimeout(() => copies.forEach((copy) => copy.stop()), OUTPUT_AFTER_EXIT_MS);
    await Promise.all(copies.map((copy) => copy.done));
    clearTimeout(cutOff);
    signal.throwIfAborted();
    return code;
  } finally {
    signal.removeEventListener('abort', stop);
  }
}
