import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { HANG_MS } from '../helpers/hang.js';

const REPORT = {
  id: 'rep_compressed0001',
  applicant_id: 'app_1',
  destination: 'US',
  visa_type: 'tourist',
  purpose: 'A visit',
  status: 'queued',
  created_at: '2026-11-28T10:00:00Z',
};
const ENCODERS: Record<string, (body: Buffer) => Buffer> = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };

describe('compressed answers', () => {
  let server: TestServer;

  beforeAll(async () => {
    // The report's id names the encoding of the answer: rep_gzip, rep_bomb…
    server = await startServer((request, response) => {
      const encoding = /\/v1\/reports\/rep_(\w+)/.exec(request.path)?.[1] ?? '';
      if (encoding === 'bomb') {
        // 65 MiB of zeros, which gzip makes some 65 KiB of.
        response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(65 * 1024 * 1024, 0x20)));
        return;
      }
      if (encoding === 'garbage') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end('not gzip at all');
        return;
      }
      const body = Buffer.from(JSON.stringify({ ...REPORT, id: `rep_${encoding}` }));
      const encode = ENCODERS[encoding];
      response.writeHead(200, { 'content-type': 'application/json', ...(encode && { 'content-encoding': encoding }) }).end(encode ? encode(body) : body);
    });
  });

  afterAll(() => server?.close());

  const get = (id: string) =>
    runSvc(['reports', 'get', id, '--json', '--base-url', server.url, '--retries', '0'], {
      env: isolatedEnv({ SVC_API_KEY: 'svc_test_compression_0123456789abcdef' }),
      killAfterMs: HANG_MS,
    });

  it.each(['gzip', 'deflate', 'br'])('decodes a %s answer', async (encoding) => {
    const result = await get(`rep_${encoding}`);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: `rep_${encoding}`, destination: 'US' });
  });

  it('refuses an answer that decodes to more than 64 MiB, having stopped there', async () => {
    const result = await get('rep_bomb');
    expect(result.code).toBe(ExitCode.server);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'answer_too_large' });
    expect(JSON.parse(result.stdout).error.message).toMatch(/sent a compressed answer that decodes to more than 64 MiB, to GET \/v1\/reports\/rep_bomb$/);
  });

  it('says so when an answer is not in the encoding it claims', async () => {
    const result = await get('rep_garbage');
    expect(result.code).toBe(ExitCode.server);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'answer_undecodable' });
  });
});
