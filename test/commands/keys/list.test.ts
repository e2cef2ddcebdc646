import type { KeyList } from '../../../src/api/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactKey } from '../../../src/core/redaction.js';
import { ExitCode } from '../../../src/core/errors.js';
import { startKeylessImplementation } from '../../helpers/keyless-implementation.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { expectAdminKeyNeeded, parsedOutput } from './fixtures.js';

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

describe('svc keys list', () => {
  it('lists the keys with their last use, read-only limit and IP lock', async () => {
    await sandbox.fetch('/v1/reports?limit=1', { key: sandbox.keys.read_only });
    const list = parsedOutput<KeyList>(await svc(['keys', 'list', '--all', '--json']));
    const readOnly = list.data.find((key) => key.prefix_hint === redactKey(sandbox.keys.read_only))!;
    expect(readOnly).toMatchObject({ read_only: true, last_used_ip: '127.0.0.1' });
    expect(readOnly.last_used_at).not.toBeNull();

    const table = await svc(['keys', 'list']);
    expect(table.code, table.stderr).toBe(0);
    const [head, ...rows] = table.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(head).toEqual(['id', 'key', 'name', 'env', 'status', 'read-only', 'IP lock', 'last used', 'last IP', 'created']);
    expect(rows.find((row) => row[0] === readOnly.id)).toEqual([
      readOnly.id,
      readOnly.prefix_hint,
      'sandbox read-only key',
      'test',
      'active',
      'yes',
      'any',
      readOnly.last_used_at,
      '127.0.0.1',
      readOnly.created_at,
    ]);
    expect(rows.find((row) => row[1] === redactKey(sandbox.keys.ip_locked))?.[6]).toBe('192.0.2.10');
    expect(table.stdout).not.toContain(sandbox.keys.admin);
  });

  it('says clearly that it needs the admin key when given another', () => expectAdminKeyNeeded(sandbox, svc, ['keys', 'list']));

  it('against a service that offers no key list, ends with its own exit code and says where keys are made', () => expectNotOffered(['keys', 'list']));
});
