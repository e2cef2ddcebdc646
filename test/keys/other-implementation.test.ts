/**
 * Key revocation and rotation against implementations that answer the stated DELETE /v1/keys/{id}
 * otherwise than the sandbox (its result is not shown): 204 without a body, `+00:00` timestamps,
 * and no GET /v1/keys/{id} at all.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RotationRecord } from '../../src/keys/journal.js';
import { type MutatingImplementation, type ProxyState, startMutatingImplementation, type Variant } from '../helpers/mutating-implementation.js';
import { startOtherImplementation } from '../helpers/other-implementation.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { createKeyWithAdmin, FAST, keyById, startBackgroundClient } from '../commands/keys/fixtures.js';

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

let sandbox: RunningSandbox;
let implementation: MutatingImplementation;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet', '--plan', 'enterprise']);
  const state: ProxyState = { keys: sandbox.keys, created: new Map(), revoked: new Set(), applicants: new Map(), secret: sandbox.keys.webhook_secret };
  implementation = await startMutatingImplementation(sandbox, KEY_ANSWERS, state);
});
afterAll(async () => {
  await implementation.close();
  await sandbox.stop();
});

function svc(args: string[], extra: Record<string, string> = {}) {
  const keys = { SVC_API_KEY: sandbox.keys.test, SVC_ADMIN_KEY: sandbox.keys.admin };
  return runSvc(args, { env: { ...sandbox.env, ...keys, SVC_BASE_URL: implementation.baseUrl, SVC_CA_CERT: implementation.caCertPath, ...extra } });
}

describe('against DELETE /v1/keys/{id} answering 204 without a body, and +00:00 timestamps', () => {
  it('keys revoke revokes, and prints the id and revoked: true with --json', async () => {
    const key = await createKeyWithAdmin(sandbox, { name: 'revoked by 204' });
    const result = await svc(['keys', 'revoke', key.id, '--yes', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ id: key.id, revoked: true });
    expect((await keyById(sandbox, key.id)).status).toBe('revoked');

    const human = await svc(['keys', 'revoke', key.id, '--yes']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toBe(`Already revoked: ${key.id}\n`);
  });

  it('keys rotate completes, the drain judged by +00:00 timestamps, the revocation recorded without a time', async () => {
    const old = await createKeyWithAdmin(sandbox, { name: 'rotated on another implementation' });
    const file = join(sandbox.env.HOME!, 'other-implementation.key');
    writeFileSync(file, `${old.secret}\n`, { mode: 0o600 });
    const app = startBackgroundClient(sandbox, file);
    const result = await svc(['keys', 'rotate', old.id, '--new-key-file', file, ...FAST, '--yes', '--json'], { SVC_API_KEY: old.secret });
    await app.stop();
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.event === 'step_done').map((line) => line.step)).toEqual([
      'create',
      'save',
      'deploy',
      'verify',
      'drain',
      'revoke',
      'confirm',
    ]);
    expect(lines.find((line) => line.event === 'drain_progress')).toMatchObject({ old_key_last_used_at: expect.stringMatching(/\+00:00$/) });
    expect(lines.find((line) => line.step === 'revoke')).toMatchObject({ message: `revoked ${old.id}` });
    expect((await keyById(sandbox, old.id)).status).toBe('revoked');
    const rotation = String(lines.at(-1)!.rotation);
    const record = JSON.parse(readFileSync(join(sandbox.env.HOME!, 'state', 'svc', 'rotations', `${rotation}.json`), 'utf8')) as RotationRecord;
    expect(record.steps.revoke).toMatchObject({ revoked_at: null });
    expect(app.authFailures()).toEqual([]);
  });
});

describe('against a service without GET /v1/keys/{id}', () => {
  it('keys revoke warns that it cannot check the key, and revokes it as asked', async () => {
    const other = await startOtherImplementation({ deleteStatus: 202, deleteBody: 'json' });
    try {
      const env = isolatedEnv({ SVC_BASE_URL: other.url, SVC_ADMIN_KEY: 'svc_admin_other_implementation_placeholder', SVC_RETRIES: '0' });
      const refused = await runSvc(['keys', 'revoke', 'key_abc123'], { env });
      expect(refused.code).toBe(2);
      const result = await runSvc(['keys', 'revoke', 'key_abc123', '--yes', '--json'], { env });
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
