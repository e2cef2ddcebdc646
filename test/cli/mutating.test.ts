import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { svcInProcess } from '../helpers/in-process.js';
import { isolatedEnv } from '../helpers/svc.js';

const TEST_KEY = 'svc_test_mutating0123456789abcdefghijk';
const LIVE_KEY = 'svc_live_mutating_0123456789_abcdefghijk';

let server: TestServer;
beforeAll(async () => {
  server = await startServer((request, response) => {
    const id = request.path.split('/').at(-1);
    if (request.method === 'DELETE') return json(response, 200, { id, object: 'report', deleted: true });
    json(response, 200, { object: 'list', data: [], has_more: false });
  });
});
afterAll(() => server.close());

function svc(args: string[], key = TEST_KEY) {
  return svcInProcess(args, { env: isolatedEnv({ SVC_BASE_URL: server.url, SVC_API_KEY: key }) });
}

describe('a destructive command', () => {
  it('is refused without --yes when there is no terminal, and sends nothing', async () => {
    const before = server.requests.length;
    const result = await svc(['reports', 'delete', 'rep_keep']);
    expect(result.code).toBe(ExitCode.usage);
    expect(result.stderr).toContain('--yes is required when not running interactively');
    expect(server.requests.length).toBe(before);
  });

  it('goes ahead with --yes and prints the deletion result with --json', async () => {
    const result = await svc(['reports', 'delete', 'rep_gone', '--yes', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ id: 'rep_gone', object: 'report', deleted: true });
    expect(server.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/v1/reports/rep_gone' });
  });

  it('is marked LIVE on stderr with a live key, naming the command as typed, the key redacted', async () => {
    const result = await svc(['reports', 'delete', 'rep_live', '--yes', '--json'], LIVE_KEY);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^LIVE {2}reports delete acts on production .*svc_live_…hijk/m);
    expect(() => JSON.parse(result.stdout)).not.toThrow();
    expect(result.stdout + result.stderr).not.toContain(LIVE_KEY);
  });

  it('is not marked LIVE with a test key', async () => {
    const result = await svc(['reports', 'delete', 'rep_test', '--yes']);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('LIVE');
  });

  it('a reading command is not marked LIVE even with a live key', async () => {
    const result = await svc(['reports', 'list'], LIVE_KEY);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('LIVE');
  });
});
