import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { svcInProcess } from '../../helpers/in-process.js';

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandboxInProcess();
});
afterAll(() => sandbox.stop());

describe('svc sandbox cert', () => {
  it('prints the certificate path', async () => {
    const cert = await svcInProcess(['sandbox', 'cert', '--data-dir', sandbox.dataDir], { env: sandbox.env });
    expect(cert.stdout.trim()).toBe(sandbox.caCert);
    expect(statSync(sandbox.caCert).isFile()).toBe(true);
  });
});
