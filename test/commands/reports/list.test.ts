/**
 * `svc reports list --all` at listings that never end: an answer that repeats its page, one whose
 * next page is always the same page, and fresh pages without end. It stops and says why on stderr
 * and in --json. In the test's process, against real HTTPS servers on 127.0.0.1.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../../helpers/in-process.js';
import { type Handler, json, startServer, type TestServer } from '../../helpers/server.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { makeCertificate } from '../../helpers/tls.js';
import { KEY } from './fixtures.js';

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

function svc(server: TestServer, args: string[]) {
  return svcInProcess(args, { env: isolatedEnv({ SVC_BASE_URL: server.url, SVC_API_KEY: KEY, SVC_CA_CERT: caFile, SVC_RETRIES: '0' }) });
}

const report = (id: string) => ({ id, status: 'completed', destination: 'NZ', created_at: '2026-01-05T09:30:00Z' });

function paths(server: TestServer): string[] {
  return server.requests.map((request) => `${request.method} ${request.path}`);
}

describe('reports list --all', () => {
  it('stops after 1000 pages of reports never seen before, unless --max-pages says otherwise', async () => {
    const server = await serve((_request, response, index) => json(response, 200, { object: 'list', data: [report(`rep_${index}`)], has_more: true }));
    const result = await svc(server, ['reports', 'list', '--all', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const listing = JSON.parse(result.stdout);
    expect(listing).toMatchObject({ has_more: null, stopped: { reason: 'page_limit', message: '1000 pages read, the most allowed' } });
    expect(listing.data).toHaveLength(1000);
    expect(server.requests).toHaveLength(1000);

    const fewer = await svc(server, ['reports', 'list', '--all', '--max-pages', '3']);
    expect(fewer.code, fewer.stderr).toBe(0);
    expect(server.requests).toHaveLength(1003);
    expect(fewer.stderr).toContain('Warning: stopped paging: 3 pages read, the most allowed (--max-pages), so more reports may follow');
  });

  it('stops at a next cursor already followed, though its page brought new reports', async () => {
    const server = await serve((_request, response, index) => json(response, 200, { data: [report(`rep_${index}`)], next_cursor: 'always-the-same' }));
    const result = await svc(server, ['reports', 'list', '--all', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      data: [{ id: 'rep_0' }, { id: 'rep_1' }],
      has_more: null,
      stopped: { reason: 'repeated_cursor', message: 'page 2 leads to a page already read (by next_cursor)' },
    });
    expect(paths(server)).toEqual(['GET /v1/reports', 'GET /v1/reports?cursor=always-the-same']);
  });

  it('stops at an answer that repeats its page', async () => {
    const server = await serve((_request, response) => json(response, 200, { object: 'list', data: [report('rep_1'), report('rep_2')], has_more: true }));
    const result = await svc(server, ['reports', 'list', '--all', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ data: [{ id: 'rep_1' }, { id: 'rep_2' }], has_more: null, stopped: { reason: 'repeated_page' } });
    expect(server.requests).toHaveLength(2);
  });
});
