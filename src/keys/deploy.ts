import type { Writable } from 'node:stream';
import { spawn } from 'node:child_process';
import { environmentWithoutSvc } from '../child-environment.js';
import { copyRedacted } from '../child-output.js';
import { SvcError } from '../errors.js';

/**
 * How long output is still copied once the deploy command has exited: a process it started in the
 * background may hold its stdout open for as long as it runs.
 */
const OUTPUT_AFTER_EXIT_MS = 1000;

function deployEnvironment(secret: string, newKeyId: string): NodeJS.ProcessEnv {
  return { ...environmentWithoutSvc(), SVC_NEW_API_KEY: secret, SVC_NEW_KEY_ID: newKeyId };
}

/**
 * Runs the operator's deploy command through the shell with the new key in SVC_NEW_API_KEY and on
 * stdin (one line), never in its argv, and none of svc's own variables. Its stdout and stderr go
 * to `output` (svc's stderr), so `--json` output stays machine-readable, redacted of the new key and of
 * `secrets` (a `set -x` would print the key). A Ctrl-C reaches it (same process group); an abort
 * of `signal` ends it too.
 */
export async function runDeployCommand(
  command: string,
  secret: string,
  newKeyId: string,
  options: { secrets: readonly string[]; output: Writable; signal: AbortSignal },
): Promise<void> {
  const { secrets, output, signal } = options;
  const child = spawn(command, { shell: true, stdio: ['pipe', 'pipe', 'pipe'], env: deployEnvironment(secret, newKeyId) });
  const redacted = [...secrets, secret];
  const copies = [copyRedacted(child.stdout, output, redacted), copyRedacted(child.stderr, output, redacted)];
  // A command that does not read stdin may exit before the write: that is not a failure.
  child.stdin.on('error', () => undefined);
  child.stdin.end(`${secret}\n`);
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
