/**
 * Listings that never end: an answer that repeats its page, one whose next page is always the same
 * page, and fresh pages without end. `keys list --all` stops, says why on stderr and in --json, and
 * a key rotation does not take a listing cut short as proof that its new key is not there. The real
 * binary against real HTTPS servers on 127.0.0.1. `reports list --all`: test/commands/reports/list.test.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RotationRecord } from '../../src/keys/journal.js';
import { ExitCode } from '../../src/core/errors.js';
import { type Handler, json, startServer, type TestServer } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { makeCertificate } from '../helpers/tls.js';
import { HANG_MS } from '../helpers/hang.js';

const ADMIN_KEY = 'svc_admin_endlesspaging0123456789abcdef';
const API_KEY = 'svc_test_endlesspaging0123456789abcdefgh';

let certificate: { key: string; cert: string };
let caFile: string;
const servers: TestServer[] = [];

beforeAll(async () => {
  certificate = await makeCertificate();
  caFile = join(isolatedEnv().HOME!, 'ca.pem');
  writeFileSync(caFile, certificate.cert);
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: Handler): Promise<TestServer> {
  const server = await startServer(handler, certificate);
  servers.push(server);
  return server;
}

function svc(server: TestServer, args: string[], env = isolatedEnv()) {
  return runSvc(args, {
    env: { ...env, SVC_BASE_URL: server.url, SVC_ADMIN_KEY: ADMIN_KEY, SVC_API_KEY: API_KEY, SVC_CA_CERT: caFile, SVC_RETRIES: '0' },
    killAfterMs: HANG_MS,
  });
}

function key(id: string) {
  return {
    id,
    object: 'key',
    name: id,
    environment: 'test',
    prefix_hint: 'svc_test_…0000',
    read_only: false,
    allowed_ips: [],
    status: 'active',
    created_at: '2026-01-05T09:30:00Z',
    last_used_at: null,
    last_used_ip: null,
    revoked_at: null,
  };
}

function paths(server: TestServer): string[] {
  return server.requests.map((request) => `${request.method} ${request.path}`);
}

describe('keys list --all', () => {
  it('stops at an answer that repeats its page with has_more: true, and says so', async () => {
    const server = await serve((_request, response) => json(response, 200, { object: 'list', data: [key('key_1'), key('key_2')], has_more: true }));
    const result = await svc(server, ['keys', 'list', '--all', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      object: 'list',
      data: [key('key_1'), key('key_2')],
      has_more: null,
      stopped: { reason: 'repeated_page', message: 'page 2 brought nothing not seen before (next page by has_more, after the last id)' },
    });
    expect(paths(server)).toEqual(['GET /v1/keys?limit=100', 'GET /v1/keys?limit=100&starting_after=key_2']);
    expect(result.stderr).toContain(
      'Warning: stopped paging: page 2 brought nothing not seen before (next page by has_more, after the last id), so more keys may follow',
    );

    const human = await svc(server, ['keys', 'list', '--all']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout.split('\n').filter((line) => line.startsWith('key_'))).toHaveLength(2);
    expect(human.stderr).toContain('Warning: stopped paging: page 2 brought nothing not seen before');
  });

  it('stops at a next page already read, new keys on it or not', async () => {
    const server = await serve((_request, response, index) =>
      json(response, 200, { object: 'list', data: [key(`key_new${index}`), key('key_last')], has_more: true }),
    );
    const result = await svc(server, ['keys', 'list', '--all', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      data: [{ id: 'key_new0' }, { id: 'key_last' }, { id: 'key_new1' }],
      has_more: null,
      stopped: { reason: 'repeated_cursor', message: 'page 2 leads to a page already read (by has_more, after the last id)' },
    });
    expect(server.requests).toHaveLength(2);
  });

  it('stops after --max-pages pages of keys never seen before', async () => {
    const server = await serve((_request, response, index) => json(response, 200, { object: 'list', data: [key(`key_${index}`)], has_more: true }));
    const result = await svc(server, ['keys', 'list', '--all', '--max-pages', '25', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const listing = JSON.parse(result.stdout);
    expect(listing).toMatchObject({ has_more: null, stopped: { reason: 'page_limit', message: '25 pages read, the most allowed' } });
    expect(listing.data).toHaveLength(25);
    expect(server.requests).toHaveLength(25);
    expect(result.stderr).toContain('Warning: stopped paging: 25 pages read, the most allowed (--max-pages), so more keys may follow');
  });

  it('stops at has_more: true on a page without keys, which names no next page', async () => {
    const server = await serve((_request, response, index) => json(response, 200, { object: 'list', data: index === 0 ? [key('key_1')] : [], has_more: true }));
    const result = await svc(server, ['keys', 'list', '--all', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      data: [{ id: 'key_1' }],
      has_more: null,
      stopped: { reason: 'unknown_paging', message: 'has_more is true on a page without keys' },
    });
    expect(server.requests).toHaveLength(2);
  });

  it('reads to the end of a list that ends, with nothing on stderr', async () => {
    const server = await serve((_request, response, index) => json(response, 200, { object: 'list', data: [key(`key_${index}`)], has_more: index < 2 }));
    const result = await svc(server, ['keys', 'list', '--all', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ object: 'list', data: [key('key_0'), key('key_1'), key('key_2')], has_more: false });
    expect(result.stderr).toBe('');
  });
});

describe('a rotation looking for the key an interrupted run may have created', () => {
  /** A rotation whose run stopped after POST /v1/keys was sent and before its answer was recorded. */
  function interruptedRotation(server: TestServer, env: Record<string, string>): string {
    const id = 'rot_0123456789abcdef0123';
    const now = new Date().toISOString();
    const record: RotationRecord = {
      version: 1,
      id,
      status: 'in_progress',
      started_at: now,
      updated_at: now,
      base_url: `${server.url}/`,
      old_key: { id: 'key_old', name: 'app', prefix_hint: 'svc_test_…abcd', read_only: false, allowed_ips: [], environment: 'test' },
      new_key_name: `app (rotation ${id})`,
      new_key_file: join(env.HOME!, 'app.key'),
      deploy_cmd: null,
      quiet_period_ms: 1000,
      attempts: { create: now },
      steps: {},
    };
    const dir = join(env.XDG_STATE_HOME!, 'svc', 'rotations');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, `${id}.json`), JSON.stringify(record), { mode: 0o600 });
    return id;
  }

  it.each([['--resume'], ['--abort']])(
    'with %s, fails (exit 14) at a key listing that repeats its page: it creates and revokes nothing, and the journal keeps the attempt',
    async (flag) => {
      // The old key reads as it did (a resumed run reads the keys it would revoke first); the listing repeats its page.
      const server = await serve((request, response) =>
        request.method === 'GET' && request.path === '/v1/keys/key_old'
          ? json(response, 200, { ...key('key_old'), prefix_hint: 'svc_test_…abcd', status: 'active' })
          : request.method === 'GET' && request.path.startsWith('/v1/keys?')
            ? json(response, 200, { object: 'list', data: [key('key_1')], has_more: true })
            : json(response, 500, { error: { code: 'unexpected', message: `${request.method} ${request.path}` } }),
      );
      const env = isolatedEnv();
      const rotation = interruptedRotation(server, env);
      const result = await svc(server, ['keys', 'rotate', flag, rotation, '--yes', '--json'], env);
      expect(result.code, result.stderr).toBe(ExitCode.rotationStepFailed);
      expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!).error).toMatchObject({
        code: 'key_listing_incomplete',
        message: `svc could not read every key of the workspace to look for "app (rotation ${rotation})", which an earlier run may have created: page 2 brought nothing not seen before (next page by has_more, after the last id); nothing was created or revoked`,
      });
      expect(paths(server).every((path) => path.startsWith('GET /v1/keys?') || path === 'GET /v1/keys/key_old')).toBe(true);
      const journal = JSON.parse(readFileSync(join(env.XDG_STATE_HOME!, 'svc', 'rotations', `${rotation}.json`), 'utf8')) as RotationRecord;
      expect(journal).toMatchObject({ status: 'in_progress', steps: {}, attempts: { create: expect.any(String) } });
    },
  );
});
