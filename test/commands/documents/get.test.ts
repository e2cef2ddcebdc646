import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, startServer, type TestServer } from '../../helpers/server.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { ANALYSED, REJECTED } from './fixtures.js';

const KEY = 'svc_test_documents0123456789abcdefghijk';

let server: TestServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startServer((request, response) => json(response, 200, request.path.split('/').at(-1) === REJECTED.id ? REJECTED : ANALYSED));
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  env = isolatedEnv({ SVC_BASE_URL: server.url, SVC_API_KEY: KEY });
});

function svc(args: string[]) {
  return svcInProcess(args, { env });
}

describe('svc documents get', () => {
  it('reads GET /v1/documents/{id} and prints the document as answered with --json', async () => {
    const result = await svc(['documents', 'get', 'doc_7Hs2pQ1x', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(ANALYSED);
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /v1/documents/doc_7Hs2pQ1x']);
  });

  it('shows status, content type, red flags and the passport fields to people', async () => {
    const result = await svc(['documents', 'get', 'doc_7Hs2pQ1x']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('status\tanalysed');
    expect(result.stdout).toContain('content type\tapplication/pdf');
    expect(result.stdout).toContain('code\tmessage\npassport_expires_soon\tThe passport expires within six months of travel.');
    expect(result.stdout).toContain('document number\tX1234567');
    expect(result.stdout).toContain('check digits\tvalid');
  });

  it('shows why a document was rejected', async () => {
    const result = await svc(['documents', 'get', 'doc_rejected1']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('rejected\tunsafe_content: The PDF carries JavaScript.');
  });
});
