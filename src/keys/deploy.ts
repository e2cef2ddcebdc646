import { spawn } from 'node:child_process';
import { SvcError } from '../errors.js';

/**
 * Runs the operator's deploy command through the shell with the new key in SVC_NEW_API_KEY and on
 * stdin (one line), never in its argv. Its stdout goes to svc's stderr, so `--json` output stays
 * machine-readable. A Ctrl-C reaches it (same process group); an abort of `signal` ends it too.
 */
export async function runDeployCommand(command: string, secret: string, newKeyId: string, signal: AbortSignal): Promise<void> {
  const child = spawn(command, {
    shell: true,
    stdio: ['pipe', 2, 2],
    env: { ...process.env, SVC_NEW_API_KEY: secret, SVC_NEW_KEY_ID: newKeyId },
  });
  // A command that does not read stdin may exit before the write: that is not a failure.
  child.stdin!.on('error', () => undefined);
  child.stdin!.end(`${secret}\n`);
  const stop = () => child.kill('SIGTERM');
  signal.addEventListener('abort', stop, { once: true });
  try {
    const [code, killedBy] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (exitCode, signalName) => resolve([exitCode, signalName]));
    });
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
