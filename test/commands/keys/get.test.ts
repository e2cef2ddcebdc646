import type { Key } from '../../../src/api/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactKey } from '../../../src/core/redaction.js';
import { ExitCode } from '../../../src/core/errors.js';
import { startKeylessImplementation } from '../../helpers/keyless-implementation.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { allKeys, expectAdminKeyNeeded, keyById, parsedOutput } from './fixtures.js';

let sandbox: InProcessSandbox;

beforeAll(async () => {
  sandbox = await startSandboxInProcess({ log: undefined });
});
afterAll(() => sandbox.stop());

function svc(args: string[], extra: Record<string, string> = {}) {
  return svcInProcess(args, { env: { ...sandbox.env, ...extra } });
}

/** `svc keys <args>` against a service that offers no key reads: its own exit code, and where keys are made. */
async function expectNotOffered(args: string[]) {
  const service = await startKeylessImplementation();
  try {
    const env = isolatedEnv({ SVC_BASE_URL: service.url, SVC_ADMIN_KEY: service.makeKey('admin').secret, SVC_RETRIES: '0' });
    const result = await svcInProcess([...args, '--json'], { env });
    expect(result.code, result.stderr).toBe(ExitCode.notOffered);
    const error = (JSON.parse(result.stdout) as { error: { code: string; hint: string } }).error;
    expect(error.code).toBe('key_api_not_offered');
    expect(error.hint).toContain('dashboard (Settings › API Keys)');
    expect(result.stderr + result.stdout).not.toContain('check the id');
  } finally {
    await service.close();
  }
}

describe('svc keys get', () => {
  it('shows one key', async () => {
    const id = (await allKeys(sandbox)).find((key) => key.prefix_hint === redactKey(sandbox.keys.ip_locked))!.id;
    expect(parsedOutput<Key>(await svc(['keys', 'get', id, '--json']))).toEqual(await keyById(sandbox, id));
    const human = await svc(['keys', 'get', id]);
    expect(human.stdout).toContain('IP lock\t192.0.2.10');
    expect(human.stdout).toContain('last used\tnever');
  });

  it('says clearly that it needs the admin key when given another', () => expectAdminKeyNeeded(sandbox, svc, ['keys', 'get', 'key_any']));

  it('against a service that offers no key reads, ends with its own exit code and says where keys are made', () =>
    expectNotOffered(['keys', 'get', 'key_abc123']));
});
