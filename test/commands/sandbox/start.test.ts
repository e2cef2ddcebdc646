import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandboxInProcess();
});
afterAll(() => sandbox.stop());

describe('sandbox start on a port in use', () => {
  it('says so in words and exits 2, as webhooks listen does', async () => {
    const env = isolatedEnv();
    const result = await svcInProcess(['sandbox', 'start', '--port', String(sandbox.port), '--data-dir', join(env.HOME!, 'sandbox'), '--json'], { env });
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'cannot_listen', message: `cannot listen on 127.0.0.1:${sandbox.port}: EADDRINUSE` });
    expect(result.stderr).toContain('choose another with --port');
    expect(result.stderr).not.toContain('Error: listen EADDRINUSE');
  });
});
