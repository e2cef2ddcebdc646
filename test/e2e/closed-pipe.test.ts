/**
 * `svc … | head`: the reader closes the pipe before svc has written what it had to say. svc ends
 * quietly with 0, as git does, whatever it was writing. The real binary, its stdout a pipe whose
 * reading end is closed before svc writes to it.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { deprecationWarning } from '../../src/cli/deprecated-json.js';
import { isolatedEnv, SVC_BIN } from '../helpers/svc.js';

function runIntoClosedPipe(args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, [SVC_BIN, ...args], { env: isolatedEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
}

describe('a closed pipe ends svc quietly with 0', () => {
  const commands = [['--help'], ['reports', '--help'], ['keys', 'rotate', '--help'], ['contract', 'list'], ['contract', 'list', '--json'], ['--version']];
  it.each(commands.map((args) => [args.join(' '), args] as const))('svc %s', async (_name, args) => {
    // Nothing on stderr but what --json of contract list says of its deprecated field (docs/json-output.md).
    const deprecated = args.includes('--json') ? `Warning: ${deprecationWarning('contract list')}\n` : '';
    expect(await runIntoClosedPipe([...args])).toEqual({ code: 0, signal: null, stderr: deprecated });
  });
});
