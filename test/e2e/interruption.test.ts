/**
 * The commands that serve until stopped, as the README's exit-code table has it: Ctrl-C (SIGINT)
 * exits 130; SIGTERM, a supervisor's orderly stop, exits 0.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { startListen } from '../helpers/listen.js';
import { startSandboxProcess } from '../helpers/sandbox.js';
import { isolatedEnv } from '../helpers/svc.js';

describe.each<[NodeJS.Signals, number]>([
  ['SIGINT', ExitCode.interrupted],
  ['SIGTERM', ExitCode.ok],
])('on %s', (signal, code) => {
  it(`svc webhooks listen exits ${code}`, async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: 'whsec_interruption0123456789abcdefghij' });
    const running = await startListen([], env, join(env.HOME!, 'events.db'));
    expect(await running.stop(signal), running.stderr()).toBe(code);
  });

  it(`svc sandbox start exits ${code}`, async () => {
    const sandbox = await startSandboxProcess(['--quiet']);
    expect(await sandbox.stop(signal)).toBe(code);
  });
});
