import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Key, KeyList, KeyRevocation } from '../../src/api/types.js';
import { redactKey } from '../../src/config/keys.js';
import { ExitCode } from '../../src/errors.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { runSvc } from '../helpers/svc.js';
import { allKeys, keyById } from './fixtures.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet']);
});
afterAll(() => sandbox.stop());

function svc(args: string[], extra: Record<string, string> = {}) {
  return runSvc(args, { env: { ...sandbox.env, ...extra } });
}

function parsed<T>(result: { code: number | null; stdout: string; stderr: string }): T {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

describe('svc keys create, list, get and revoke', () => {
  it('creates a key with its scope and writes the secret to a 0600 file, never to the output', async () => {
    const file = join(sandbox.env.HOME!, 'reporting.key');
    const result = await svc(['keys', 'create', '--name', 'reporting', '--read-only', '--allow-ip', '127.0.0.1', '--allow-ip', '192.0.2.1', '--key-file', file, '--json']);
    const created = parsed<Key & { secret_file: string }>(result);
    expect(created).toMatchObject({ name: 'reporting', environment: 'test', read_only: true, allowed_ips: ['127.0.0.1', '192.0.2.1'], status: 'active', secret_file: file });
    const secret = readFileSync(file, 'utf8').trim();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(redactKey(secret)).toBe(created.prefix_hint);
    expect(result.stdout + result.stderr).not.toContain(secret);
    expect((await sandbox.fetch('/v1/reports?limit=1', { key: secret })).status).toBe(200);
  });

  it('lists the keys with their last use, read-only limit and IP lock', async () => {
    await sandbox.fetch('/v1/reports?limit=1', { key: sandbox.keys.read_only });
    const list = parsed<KeyList>(await svc(['keys', 'list', '--all', '--json']));
    const readOnly = list.data.find((key) => key.prefix_hint === redactKey(sandbox.keys.read_only))!;
    expect(readOnly).toMatchObject({ read_only: true, last_used_ip: '127.0.0.1' });
    expect(readOnly.last_used_at).not.toBeNull();

    const table = await svc(['keys', 'list']);
    expect(table.code, table.stderr).toBe(0);
    const [head, ...rows] = table.stdout.trim().split('\n').map((line) => line.split('\t'));
    expect(head).toEqual(['id', 'key', 'name', 'env', 'status', 'read-only', 'IP lock', 'last used', 'last IP', 'created']);
    expect(rows.find((row) => row[0] === readOnly.id)).toEqual([readOnly.id, readOnly.prefix_hint, 'sandbox read-only key', 'test', 'active', 'yes', 'any', readOnly.last_used_at, '127.0.0.1', readOnly.created_at]);
    expect(rows.find((row) => row[1] === redactKey(sandbox.keys.ip_locked))?.[6]).toBe('192.0.2.10');
    expect(table.stdout).not.toContain(sandbox.keys.admin);
  });

  it('shows one key', async () => {
    const id = (await allKeys(sandbox)).find((key) => key.prefix_hint === redactKey(sandbox.keys.ip_locked))!.id;
    expect(parsed<Key>(await svc(['keys', 'get', id, '--json']))).toEqual(await keyById(sandbox, id));
    const human = await svc(['keys', 'get', id]);
    expect(human.stdout).toContain('IP lock\t192.0.2.10');
    expect(human.stdout).toContain('last used\tnever');
  });

  it('revokes a key with --yes, at once, and refuses without it when there is no terminal', async () => {
    const file = join(sandbox.env.HOME!, 'short-lived.key');
    const created = parsed<Key>(await svc(['keys', 'create', '--name', 'short-lived', '--key-file', file, '--json']));
    const unattended = await svc(['keys', 'revoke', created.id]);
    expect(unattended.code).toBe(ExitCode.usage);
    expect(unattended.stderr).toContain('--yes is required when not running interactively');
    expect((await keyById(sandbox, created.id)).status).toBe('active');

    const revocation = parsed<KeyRevocation>(await svc(['keys', 'revoke', created.id, '--yes', '--json']));
    expect(revocation).toMatchObject({ id: created.id, object: 'key', revoked: true });
    const refused = await sandbox.fetch('/v1/reports?limit=1', { key: readFileSync(file, 'utf8').trim() });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('invalid_key');
  });

  it('refuses to revoke the admin key doing the revoking', async () => {
    const admin = (await allKeys(sandbox)).find((key) => key.prefix_hint === redactKey(sandbox.keys.admin))!;
    const result = await svc(['keys', 'revoke', admin.id, '--yes', '--json']);
    expect(result.code).toBe(ExitCode.refused);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'revoking_own_key' });
    expect((await keyById(sandbox, admin.id)).status).toBe('active');
  });

  it.each([
    ['list', []],
    ['get', ['key_any']],
    ['create', ['--key-file', '/tmp/never-written.key']],
    ['revoke', ['key_any', '--yes']],
    ['rotate', ['key_any', '--new-key-file', '/tmp/never-written.key', '--yes']],
  ])('keys %s says clearly that it needs the admin key when given another', async (verb, rest) => {
    const withTestKey = await svc(['keys', verb, ...rest, '--json'], { SVC_ADMIN_KEY: sandbox.keys.test });
    expect(withTestKey.code).toBe(ExitCode.config);
    expect(JSON.parse(withTestKey.stdout).error).toMatchObject({ code: 'not_an_admin_key' });
    expect(withTestKey.stderr).toContain('key management needs an admin key');
    expect(withTestKey.stderr).not.toContain(sandbox.keys.test);

    const onArgv = await svc(['keys', verb, ...rest, '--admin-key', sandbox.keys.read_only]);
    expect(onArgv.code).toBe(ExitCode.config);
    expect(onArgv.stderr).toContain('visible to other local users');
    expect(onArgv.stderr).toContain('is a test key');
  });
});
