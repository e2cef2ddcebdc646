import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Key, KeyList, KeyRevocation } from '../../src/api/types.js';
import { redactKey } from '../../src/core/redaction.js';
import { ExitCode } from '../../src/core/errors.js';
import { type ProxyState, startMutatingImplementation } from '../helpers/mutating-implementation.js';
import { svcInProcess } from '../helpers/in-process.js';
import { type InProcessSandbox, startSandboxInProcess } from '../helpers/sandbox.js';
import { runSvc } from '../helpers/svc.js';
import { allKeys, createKeyWithAdmin, keyById } from '../commands/keys/fixtures.js';
import { HANG_MS } from '../helpers/hang.js';

let sandbox: InProcessSandbox;

beforeAll(async () => {
  sandbox = await startSandboxInProcess({ log: undefined });
});
afterAll(() => sandbox.stop());

function svc(args: string[], extra: Record<string, string> = {}) {
  return svcInProcess(args, { env: { ...sandbox.env, ...extra } });
}

function parsed<T>(result: { code: number | null; stdout: string; stderr: string }): T {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

describe('svc keys create, list, get and revoke', () => {
  it('creates a key with its scope and writes the secret to a 0600 file, never to the output', async () => {
    const file = join(sandbox.env.HOME!, 'reporting.key');
    const result = await svc([
      'keys',
      'create',
      '--name',
      'reporting',
      '--read-only',
      '--allow-ip',
      '127.0.0.1',
      '--allow-ip',
      '192.0.2.1',
      '--key-file',
      file,
      '--json',
    ]);
    const created = parsed<Key & { secret_file: string }>(result);
    expect(created).toMatchObject({
      name: 'reporting',
      environment: 'test',
      read_only: true,
      allowed_ips: ['127.0.0.1', '192.0.2.1'],
      status: 'active',
      secret_file: file,
    });
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
    expect(withTestKey.code).toBe(ExitCode.permission);
    expect(JSON.parse(withTestKey.stdout).error).toMatchObject({ code: 'not_an_admin_key' });
    expect(withTestKey.stderr).toContain('key management needs an admin key');
    expect(withTestKey.stderr).not.toContain(sandbox.keys.test);

    const onArgv = await svc(['keys', verb, ...rest, '--admin-key', sandbox.keys.read_only]);
    expect(onArgv.code).toBe(ExitCode.permission);
    expect(onArgv.stderr).toContain('visible to other local users');
    expect(onArgv.stderr).toContain('is a test key');
  });
});

/** Ids and statuses of the workspace's keys: what a command that makes or revokes keys changes. */
async function keyStatuses(): Promise<string[]> {
  return (await allKeys(sandbox)).map((key) => `${key.id} ${key.status}`).sort();
}

/** A run that spins (as svc did on a path under /proc) is killed by then, and fails. */

describe('a key file that must not be written', () => {
  /** An obviously fake secret, made here, standing for the only copy of another key's. */
  const previousSecret = `svc_test_${'previous'.repeat(4)}\n`;

  it('keys create refuses a directory that does not exist before it makes a key, and makes no directory', async () => {
    const before = await keyStatuses();
    const directory = join(sandbox.env.HOME!, 'mistyped-secrets');
    const file = join(directory, 'billing.key');
    const result = await svc(['keys', 'create', '--name', 'never made', '--key-file', file, '--json']);
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    const { error } = JSON.parse(result.stdout);
    expect(error).toMatchObject({ code: 'secret_file_directory_missing', message: `--key-file ${file}: the directory ${directory} does not exist` });
    expect(error.hint).toContain(`mkdir -m 700 '${directory}'`);
    expect(existsSync(directory)).toBe(false);
    expect(await keyStatuses()).toEqual(before);
  });

  it('keys create refuses a file that exists before it makes a key, and leaves the file as it was', async () => {
    const before = await keyStatuses();
    const file = join(sandbox.env.HOME!, 'only-copy.key');
    writeFileSync(file, previousSecret, { mode: 0o600 });
    const result = await svc(['keys', 'create', '--name', 'never made', '--key-file', file, '--json']);
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    const { error } = JSON.parse(result.stdout);
    expect(error).toMatchObject({ code: 'secret_file_exists', message: `--key-file ${file} exists: it may hold the only copy of another key's secret` });
    expect(error.hint).toContain('--force');
    expect(readFileSync(file, 'utf8')).toBe(previousSecret);
    expect(existsSync(`${file}.old`)).toBe(false);
    expect(await keyStatuses()).toEqual(before);
  });

  it('keys create --force replaces the file, keeping what it held in <file>.old (0600); then refuses to replace that copy', async () => {
    const file = join(sandbox.env.HOME!, 'replaced.key');
    writeFileSync(file, previousSecret, { mode: 0o644 });
    const result = await svc(['keys', 'create', '--name', 'replacing', '--key-file', file, '--force', '--json']);
    const created = parsed<Key>(result);
    expect(result.stderr).toContain(`What ${file} held is kept in ${file}.old (0600)`);
    const secret = readFileSync(file, 'utf8').trim();
    expect(redactKey(secret)).toBe(created.prefix_hint);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${file}.old`, 'utf8')).toBe(previousSecret);
    expect(statSync(`${file}.old`).mode & 0o777).toBe(0o600);

    const before = await keyStatuses();
    const again = await svc(['keys', 'create', '--name', 'never made', '--key-file', file, '--force', '--json']);
    expect(again.code, again.stderr).toBe(ExitCode.usage);
    expect(JSON.parse(again.stdout).error).toMatchObject({ code: 'secret_file_old_exists' });
    expect(readFileSync(file, 'utf8').trim()).toBe(secret);
    expect(readFileSync(`${file}.old`, 'utf8')).toBe(previousSecret);
    expect(await keyStatuses()).toEqual(before);
  });
});

describe('a key file that cannot be written', () => {
  it('keys create refuses a path under /proc before it makes a key, and exits', async () => {
    const before = await keyStatuses();
    const result = await runSvc(['keys', 'create', '--name', 'never made', '--key-file', '/proc/key', '--json'], {
      env: sandbox.env,
      killAfterMs: HANG_MS,
    });
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'secret_file_unwritable', hint: 'give --key-file a path in a directory you can write to' });
    expect(result.stderr).toContain('cannot write the secret to /proc/key: ');
    expect(await keyStatuses()).toEqual(before);
  });

  it('keys rotate refuses such a --new-key-file before it makes a key or a journal, and exits', async () => {
    const old = await createKeyWithAdmin(sandbox, { name: 'rotated to /proc' });
    const before = await keyStatuses();
    const result = await runSvc(['keys', 'rotate', old.id, '--new-key-file', '/proc/no-such-dir/key', '--yes', '--json'], {
      env: sandbox.env,
      killAfterMs: HANG_MS,
    });
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    expect(JSON.parse(result.stdout).error).toMatchObject({
      code: 'secret_file_unwritable',
      hint: 'give --new-key-file a path in a directory you can write to',
    });
    expect(await keyStatuses()).toEqual(before);
    const rotations = join(sandbox.env.HOME!, 'state', 'svc', 'rotations');
    // The rotation's lock is taken before anything is planned; no journal is written.
    expect(existsSync(rotations) ? readdirSync(rotations).filter((name) => name.startsWith('rot_')) : []).toEqual([]);
  });

  it('keys create revokes the key whose secret it could not write after all, and says so', async () => {
    const directory = join(sandbox.env.HOME!, 'worker-secrets');
    mkdirSync(directory);
    const file = join(directory, 'worker.key');
    const state: ProxyState = { keys: sandbox.keys, created: new Map(), revoked: new Set(), applicants: new Map(), secret: sandbox.keys.webhook_secret };
    // Between svc's check and its write, while the key is being made, the directory becomes a
    // file: nothing can be written in it, root included.
    const api = await startMutatingImplementation(
      sandbox,
      {
        name: 'directory-replaced',
        change: "the key file's directory is replaced by a file while POST /v1/keys is answered",
        breaks: [],
        response(response, request) {
          if (request.method !== 'POST' || request.path !== '/v1/keys' || response.status !== 201) return;
          renameSync(directory, `${directory}.moved`);
          writeFileSync(directory, '');
        },
      },
      state,
    );
    try {
      const before = await keyStatuses();
      const env = { ...sandbox.env, SVC_BASE_URL: api.baseUrl, SVC_CA_CERT: api.caCertPath, SVC_ADMIN_KEY: sandbox.keys.admin };
      const result = await runSvc(['keys', 'create', '--name', 'unsaved', '--key-file', file, '--json'], { env, killAfterMs: HANG_MS });
      expect(result.code, result.stderr).toBe(ExitCode.failure);
      const [created, secret] = [...state.created][0]!;
      const { error } = JSON.parse(result.stdout);
      expect(error.code).toBe('key_unsaved');
      expect(error.message).toMatch(
        new RegExp(`^the secret of ${created} could not be written to ${file} \\(ENOTDIR: .*\\); ${created} was revoked, as nobody holds its secret$`),
      );
      expect(state.revoked).toEqual(new Set([created]));
      expect((await keyById(sandbox, created)).status).toBe('revoked');
      expect(await keyStatuses()).toEqual([...before, `${created} revoked`].sort());
      expect(result.stdout + result.stderr).not.toContain(secret);
    } finally {
      await api.close();
    }
  });
});
