/**
 * `svc keys revoke` in-process: against the sandbox in the test's process, and against implementations
 * that answer the stated DELETE /v1/keys/{id} otherwise than the sandbox (its result is not shown):
 * 204 without a body, `+00:00` timestamps, and no GET /v1/keys/{id} at all.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Key, KeyRevocation } from '../../../src/api/types.js';
import { redactKey } from '../../../src/core/redaction.js';
import { ExitCode } from '../../../src/core/errors.js';
import { type MutatingImplementation, type ProxyState, startMutatingImplementation, type Variant } from '../../helpers/mutating-implementation.js';
import { startOtherImplementation } from '../../helpers/other-implementation.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { allKeys, createKeyWithAdmin, expectAdminKeyNeeded, keyById, parsedOutput } from './fixtures.js';

let sandbox: InProcessSandbox;

beforeAll(async () => {
  sandbox = await startSandboxInProcess({ log: undefined });
});
afterAll(() => sandbox.stop());

function svc(args: string[], extra: Record<string, string> = {}) {
  return svcInProcess(args, { env: { ...sandbox.env, ...extra } });
}

describe('svc keys revoke', () => {
  it('revokes a key with --yes, at once, and refuses without it when there is no terminal', async () => {
    const file = join(sandbox.env.HOME!, 'short-lived.key');
    const created = parsedOutput<Key>(await svc(['keys', 'create', '--name', 'short-lived', '--key-file', file, '--json']));
    const unattended = await svc(['keys', 'revoke', created.id]);
    expect(unattended.code).toBe(ExitCode.usage);
    expect(unattended.stderr).toContain('--yes is required when not running interactively');
    expect((await keyById(sandbox, created.id)).status).toBe('active');

    const revocation = parsedOutput<KeyRevocation>(await svc(['keys', 'revoke', created.id, '--yes', '--json']));
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

  it('says clearly that it needs the admin key when given another', () => expectAdminKeyNeeded(sandbox, svc, ['keys', 'revoke', 'key_any', '--yes']));
});

const UTC_Z = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?)Z$/;

/** Every `…Z` timestamp of a JSON value written with `+00:00` instead. */
function withOffsets(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(UTC_Z, '$1+00:00');
  if (Array.isArray(value)) return value.map(withOffsets);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, withOffsets(item)]));
  return value;
}

const KEY_ANSWERS: Variant = {
  name: 'other-key-answers',
  change: 'DELETE /v1/keys/{id} answers 204 without a body; timestamps end in +00:00',
  breaks: [],
  response(response, request) {
    response.json = withOffsets(response.json);
    if (request.method === 'DELETE' && request.path.startsWith('/v1/keys/') && response.status < 300) {
      response.status = 204;
      response.json = undefined;
    }
  },
};

describe('against DELETE /v1/keys/{id} answering 204 without a body, and +00:00 timestamps', () => {
  let implementation: MutatingImplementation;
  beforeAll(async () => {
    const state: ProxyState = { keys: sandbox.keys, created: new Map(), revoked: new Set(), applicants: new Map(), secret: sandbox.keys.webhook_secret };
    implementation = await startMutatingImplementation(sandbox, KEY_ANSWERS, state);
  });
  afterAll(() => implementation.close());

  /** svc's keys and base URL for the implementation in front of the sandbox. */
  const through = () => ({
    SVC_API_KEY: sandbox.keys.test,
    SVC_ADMIN_KEY: sandbox.keys.admin,
    SVC_BASE_URL: implementation.baseUrl,
    SVC_CA_CERT: implementation.caCertPath,
  });

  it('keys revoke revokes, and prints the id and revoked: true with --json', async () => {
    const key = await createKeyWithAdmin(sandbox, { name: 'revoked by 204' });
    const result = await svc(['keys', 'revoke', key.id, '--yes', '--json'], through());
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ id: key.id, revoked: true });
    expect((await keyById(sandbox, key.id)).status).toBe('revoked');

    const human = await svc(['keys', 'revoke', key.id, '--yes'], through());
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toBe(`Already revoked: ${key.id}\n`);
  });
});

describe('against a service without GET /v1/keys/{id}', () => {
  it('keys revoke warns that it cannot check the key, and revokes it as asked', async () => {
    const other = await startOtherImplementation({ deleteStatus: 202, deleteBody: 'json' });
    try {
      const env = isolatedEnv({ SVC_BASE_URL: other.url, SVC_ADMIN_KEY: 'svc_admin_other_implementation_placeholder', SVC_RETRIES: '0' });
      const refused = await svcInProcess(['keys', 'revoke', 'key_abc123'], { env });
      expect(refused.code).toBe(2);
      const result = await svcInProcess(['keys', 'revoke', 'key_abc123', '--yes', '--json'], { env });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('GET /v1/keys/key_abc123 answered 404: no such key, or the service offers no key reads');
      expect(JSON.parse(result.stdout)).toEqual({ deletion: { target: 'key_abc123', state: 'scheduled' }, id: 'key_abc123', revoked: true });
      expect(other.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
        'GET /v1/keys/key_abc123',
        'GET /v1/keys/key_abc123',
        'DELETE /v1/keys/key_abc123',
      ]);
    } finally {
      await other.close();
    }
  });
});
