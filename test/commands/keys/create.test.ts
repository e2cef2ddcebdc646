import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Key } from '../../../src/api/types.js';
import { redactKey } from '../../../src/core/redaction.js';
import { ExitCode } from '../../../src/core/errors.js';
import { startKeylessImplementation } from '../../helpers/keyless-implementation.js';
import { type ProxyState, startMutatingImplementation } from '../../helpers/mutating-implementation.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { expectAdminKeyNeeded, keyById, keyStatuses, parsedOutput } from './fixtures.js';

let sandbox: InProcessSandbox;

beforeAll(async () => {
  sandbox = await startSandboxInProcess({ log: undefined });
});
afterAll(() => sandbox.stop());

function svc(args: string[], extra: Record<string, string> = {}) {
  return svcInProcess(args, { env: { ...sandbox.env, ...extra } });
}

describe('svc keys create', () => {
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
    const created = parsedOutput<Key & { secret_file: string }>(result);
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

  it('says clearly that it needs the admin key when given another', () =>
    expectAdminKeyNeeded(sandbox, svc, ['keys', 'create', '--key-file', '/tmp/never-written.key']));

  it('against a service that offers no key creation, ends with its own exit code and says where keys are made', async () => {
    const service = await startKeylessImplementation();
    try {
      const env = isolatedEnv({ SVC_BASE_URL: service.url, SVC_ADMIN_KEY: service.makeKey('admin').secret, SVC_RETRIES: '0' });
      const result = await svcInProcess(['keys', 'create', '--key-file', join(env.HOME!, 'new.key'), '--json'], { env });
      expect(result.code, result.stderr).toBe(ExitCode.notOffered);
      const error = (JSON.parse(result.stdout) as { error: { code: string; hint: string } }).error;
      expect(error.code).toBe('key_api_not_offered');
      expect(error.hint).toContain('dashboard (Settings › API Keys)');
      expect(result.stderr + result.stdout).not.toContain('check the id');
    } finally {
      await service.close();
    }
  });
});

describe('a key file that must not be written', () => {
  /** An obviously fake secret, made here, standing for the only copy of another key's. */
  const previousSecret = `svc_test_${'previous'.repeat(4)}\n`;

  it('keys create refuses a directory that does not exist before it makes a key, and makes no directory', async () => {
    const before = await keyStatuses(sandbox);
    const directory = join(sandbox.env.HOME!, 'mistyped-secrets');
    const file = join(directory, 'billing.key');
    const result = await svc(['keys', 'create', '--name', 'never made', '--key-file', file, '--json']);
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    const { error } = JSON.parse(result.stdout);
    expect(error).toMatchObject({ code: 'secret_file_directory_missing', message: `--key-file ${file}: the directory ${directory} does not exist` });
    expect(error.hint).toContain(`mkdir -m 700 '${directory}'`);
    expect(existsSync(directory)).toBe(false);
    expect(await keyStatuses(sandbox)).toEqual(before);
  });

  it('keys create refuses a file that exists before it makes a key, and leaves the file as it was', async () => {
    const before = await keyStatuses(sandbox);
    const file = join(sandbox.env.HOME!, 'only-copy.key');
    writeFileSync(file, previousSecret, { mode: 0o600 });
    const result = await svc(['keys', 'create', '--name', 'never made', '--key-file', file, '--json']);
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    const { error } = JSON.parse(result.stdout);
    expect(error).toMatchObject({ code: 'secret_file_exists', message: `--key-file ${file} exists: it may hold the only copy of another key's secret` });
    expect(error.hint).toContain('--force');
    expect(readFileSync(file, 'utf8')).toBe(previousSecret);
    expect(existsSync(`${file}.old`)).toBe(false);
    expect(await keyStatuses(sandbox)).toEqual(before);
  });

  it('keys create --force replaces the file, keeping what it held in <file>.old (0600); then refuses to replace that copy', async () => {
    const file = join(sandbox.env.HOME!, 'replaced.key');
    writeFileSync(file, previousSecret, { mode: 0o644 });
    const result = await svc(['keys', 'create', '--name', 'replacing', '--key-file', file, '--force', '--json']);
    const created = parsedOutput<Key>(result);
    expect(result.stderr).toContain(`What ${file} held is kept in ${file}.old (0600)`);
    const secret = readFileSync(file, 'utf8').trim();
    expect(redactKey(secret)).toBe(created.prefix_hint);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${file}.old`, 'utf8')).toBe(previousSecret);
    expect(statSync(`${file}.old`).mode & 0o777).toBe(0o600);

    const before = await keyStatuses(sandbox);
    const again = await svc(['keys', 'create', '--name', 'never made', '--key-file', file, '--force', '--json']);
    expect(again.code, again.stderr).toBe(ExitCode.usage);
    expect(JSON.parse(again.stdout).error).toMatchObject({ code: 'secret_file_old_exists' });
    expect(readFileSync(file, 'utf8').trim()).toBe(secret);
    expect(readFileSync(`${file}.old`, 'utf8')).toBe(previousSecret);
    expect(await keyStatuses(sandbox)).toEqual(before);
  });
});

describe('a key file that cannot be written', () => {
  // A run that spins (as svc did on a path under /proc) never returns: the test's timeout fails it.
  it('keys create refuses a path under /proc before it makes a key, and returns', async () => {
    const before = await keyStatuses(sandbox);
    const result = await svc(['keys', 'create', '--name', 'never made', '--key-file', '/proc/key', '--json']);
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'secret_file_unwritable', hint: 'give --key-file a path in a directory you can write to' });
    expect(result.stderr).toContain('cannot write the secret to /proc/key: ');
    expect(await keyStatuses(sandbox)).toEqual(before);
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
      const before = await keyStatuses(sandbox);
      const result = await svc(['keys', 'create', '--name', 'unsaved', '--key-file', file, '--json'], {
        SVC_BASE_URL: api.baseUrl,
        SVC_CA_CERT: api.caCertPath,
        SVC_ADMIN_KEY: sandbox.keys.admin,
      });
      expect(result.code, result.stderr).toBe(ExitCode.failure);
      const [created, secret] = [...state.created][0]!;
      const { error } = JSON.parse(result.stdout);
      expect(error.code).toBe('key_unsaved');
      expect(error.message).toMatch(
        new RegExp(`^the secret of ${created} could not be written to ${file} \\(ENOTDIR: .*\\); ${created} was revoked, as nobody holds its secret$`),
      );
      expect(state.revoked).toEqual(new Set([created]));
      expect((await keyById(sandbox, created)).status).toBe('revoked');
      expect(await keyStatuses(sandbox)).toEqual([...before, `${created} revoked`].sort());
      expect(result.stdout + result.stderr).not.toContain(secret);
    } finally {
      await api.close();
    }
  });
});
