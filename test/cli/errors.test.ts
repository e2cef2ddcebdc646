import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { apiError, json, startServer, type TestServer } from '../helpers/server.js';
import { svcInProcess } from '../helpers/in-process.js';
import { isolatedEnv } from '../helpers/svc.js';
import { makeCertificate } from '../helpers/tls.js';

const KEY = 'svc_test_0123456789abcdefghijklmnopqrstuv';
const ANSWERS: Record<string, [number, string]> = {
  rep_unauthorized: [401, 'unauthorized'],
  rep_invalidkey: [401, 'invalid_key'],
  rep_forbidden: [403, 'forbidden'],
  rep_ipnotallowed: [403, 'ip_not_allowed'],
  rep_missing: [404, 'not_found'],
  rep_gone: [410, 'gone'],
  rep_invalid: [422, 'invalid_request'],
  rep_ratelimited: [429, 'rate_limited'],
  rep_broken: [500, 'internal_error'],
  rep_plainhttp: [400, 'https_required'],
};

let server: TestServer;
let tlsServer: TestServer;
let caFile: string;

beforeAll(async () => {
  // The server echoes the key it was sent in each error message: svc must still never print it.
  const answer: Parameters<typeof startServer>[0] = (request, response) => {
    const id = request.path.split('/').at(-1) ?? '';
    const [status, code] = ANSWERS[id] ?? [200, ''];
    if (status === 200) return json(response, 200, { object: 'list', data: [], has_more: false });
    apiError(response, status, code, `refused ${request.headers.authorization}`, { 'retry-after': '0' });
  };
  server = await startServer(answer);
  const certificate = await makeCertificate();
  tlsServer = await startServer(answer, certificate);
  const env = isolatedEnv();
  caFile = join(env.HOME!, 'ca.pem');
  writeFileSync(caFile, certificate.cert);
});

afterAll(async () => {
  await server.close();
  await tlsServer.close();
});

function svc(args: string[], extra: Record<string, string> = {}) {
  return svcInProcess(args, { env: isolatedEnv({ SVC_BASE_URL: server.url, SVC_API_KEY: KEY, SVC_RETRIES: '0', ...extra }) });
}

describe('errors of the API', () => {
  it.each([
    ['rep_unauthorized', ExitCode.auth, 'Authorization header'],
    ['rep_invalidkey', ExitCode.auth, 'the key is revoked, expired or unknown'],
    ['rep_forbidden', ExitCode.permission, 'lacks the scope'],
    ['rep_ipnotallowed', ExitCode.permission, 'allow-list'],
    ['rep_missing', ExitCode.notFound, 'check the id'],
    ['rep_gone', ExitCode.notFound, 'a deleted resource'],
    ['rep_invalid', ExitCode.invalidInput, 'correct the input'],
    ['rep_ratelimited', ExitCode.rateLimited, 'request rate'],
    ['rep_broken', ExitCode.server, 'try again later'],
  ])('reports get %s exits %i with a hint, and never shows the key', async (id, exitCode, hint) => {
    const result = await svc(['reports', 'get', id]);
    expect(result.code).toBe(exitCode);
    expect(result.stderr).toContain(ANSWERS[id]![1]);
    expect(result.stderr).toContain(hint);
    expect(result.stderr).toContain('svc_test_…stuv');
    expect(result.stdout + result.stderr).not.toContain(KEY);
    expect(result.stdout).toBe('');
  });

  it('with --json prints the error as one JSON object on stdout', async () => {
    const result = await svc(['reports', 'get', 'rep_invalidkey', '--json']);
    expect(result.code).toBe(ExitCode.auth);
    const body = JSON.parse(result.stdout);
    expect(body.error).toMatchObject({ kind: 'auth', code: 'invalid_key', status: 401, exit_code: ExitCode.auth });
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });

  it('exits with the network code when nothing listens', async () => {
    const closed = await startServer(() => undefined);
    await closed.close();
    const result = await svc(['reports', 'list'], { SVC_BASE_URL: closed.url });
    expect(result.code).toBe(ExitCode.network);
    expect(result.stderr).toContain('nothing is listening');
  });

  it('shows each request and X-RateLimit-Remaining with --verbose, key redacted', async () => {
    const result = await svc(['reports', 'list', '--verbose']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/v1\/reports → 200 in \d+ ms · X-RateLimit-Remaining: 42/);
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });

  it('warns that --api-key is visible in the process list, and still never prints the key', async () => {
    const result = await svcInProcess(['reports', 'get', 'rep_invalidkey', '--api-key', KEY], {
      env: isolatedEnv({ SVC_BASE_URL: server.url, SVC_RETRIES: '0' }),
    });
    expect(result.code).toBe(ExitCode.auth);
    expect(result.stderr).toContain('visible to other local users');
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });
});

describe('answers and settings that point the right way', () => {
  it('reports get of an answer that holds no report is a server answer svc cannot read (9), not an empty success', async () => {
    const result = await svc(['reports', 'get', 'rep_answeredwithalist']);
    expect(result.code).toBe(ExitCode.server);
    expect(result.stderr).toContain('GET /v1/reports/rep_answeredwithalist answered with no resource in it');
    expect(result.stdout).toBe('');
  });

  it('reports create of a success answer that holds no report is an answer svc cannot read (9), saying the report may exist', async () => {
    const result = await svc(['reports', 'create', '--applicant', 'app_1', '--destination', 'DE', '--visa-type', 'tourist', '--purpose', 'Holiday', '--json']);
    expect(result.code).toBe(ExitCode.server);
    expect(JSON.parse(result.stdout).error).toMatchObject({
      kind: 'server',
      code: 'answer_not_a_resource',
      message: 'POST /v1/reports answered with no resource in it (no object with an id)',
      hint: 'the service took the request (200), so the report may exist: `svc reports list` shows the latest reports before you send it again',
    });
  });

  it.each(['/v1', '/v1/'])('refuses a base URL ending in %s, which svc adds itself, as a configuration mistake naming the fix', async (path) => {
    const result = await svc(['reports', 'list', '--json'], { SVC_BASE_URL: `${server.url}${path}` });
    expect(result.code).toBe(ExitCode.config);
    expect(JSON.parse(result.stdout).error).toMatchObject({ kind: 'config', code: 'invalid_base_url', hint: `drop /v1: give ${server.url}` });
  });

  it('takes a refusal of plain HTTP as a configuration mistake (10) naming the https:// URL, not as bad input', async () => {
    const result = await svc(['reports', 'get', 'rep_plainhttp', '--json']);
    expect(result.code).toBe(ExitCode.config);
    const { error } = JSON.parse(result.stdout) as { error: { kind: string; hint: string } };
    expect(error.kind).toBe('config');
    expect(error.hint).toContain(`give the base URL as ${server.url.replace('http:', 'https:')}`);
    // Another refusal over plain HTTP is still the input's.
    expect((await svc(['reports', 'get', 'rep_invalid'])).code).toBe(ExitCode.invalidInput);
  });

  it('webhooks replay and sandbox deliveries replay refuse an id without evt_ as invalid input (6), as other commands refuse a wrong prefix', async () => {
    const env = isolatedEnv();
    const replay = await svcInProcess(['webhooks', 'replay', 'rep_x', '--store', join(env.HOME!, 'events.db'), '--forward-to', 'http://127.0.0.1:1/'], { env });
    expect(replay.code, replay.stderr).toBe(ExitCode.invalidInput);
    expect(replay.stderr).toContain('must be an event id starting with evt_');
    const missing = await svcInProcess(['webhooks', 'replay', 'evt_x', '--store', join(env.HOME!, 'events.db'), '--forward-to', 'http://127.0.0.1:1/'], {
      env,
    });
    expect(missing.code).toBe(ExitCode.notFound);
    const sandbox = await svcInProcess(['sandbox', 'deliveries', 'replay', 'rep_x', '--data-dir', join(env.HOME!, 'sandbox')], { env });
    expect(sandbox.code, sandbox.stderr).toBe(ExitCode.invalidInput);
  });
});

describe('waiting out a rate limit', () => {
  it('says on stderr that it waits, how long and why, and keeps --json as it is', async () => {
    let calls = 0;
    const limited = await startServer((_, response) => {
      calls += 1;
      if (calls === 1) return apiError(response, 429, 'rate_limited', 'slow down', { 'retry-after': '1' });
      return json(response, 200, { object: 'list', data: [], has_more: false });
    });
    try {
      const result = await svcInProcess(['reports', 'list', '--json'], { env: isolatedEnv({ SVC_BASE_URL: limited.url, SVC_API_KEY: KEY }) });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(
        "Waiting 1s before trying GET /v1/reports again (attempt 2 of 4): the service answered 429: the plan's request rate is exceeded",
      );
      expect(JSON.parse(result.stdout)).toMatchObject({ object: 'list', data: [] });
    } finally {
      await limited.close();
    }
  });
});

describe('hints that say where the sandbox keeps what is missing', () => {
  it.each([
    ['webhooks listen without a webhook secret', ['webhooks', 'listen', '--port', '0'], 'missing_webhook_secret'],
    ['contract verify without an API key', ['contract', 'verify', '--base-url', 'https://127.0.0.1:1'], 'no_api_key'],
  ])('%s names `svc sandbox keys --reveal`', async (_, args, code) => {
    const env = isolatedEnv();
    const result = await svcInProcess([...args, '--json'], { env });
    expect(result.code).toBe(ExitCode.config);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code, hint: expect.stringContaining('`svc sandbox keys --reveal`') });
  });
});

describe('HTTPS only', () => {
  it('refuses a plain HTTP base URL for a host that is not loopback, sending nothing', async () => {
    const result = await svc(['reports', 'list'], { SVC_BASE_URL: 'http://api.example.com' });
    expect(result.code).toBe(ExitCode.config);
    expect(result.stderr).toContain('refusing the plain HTTP base URL http://api.example.com');
    expect(result.stderr).toContain('loopback');
  });

  it.each(['http://127.0.0.1:1', 'http://127.8.9.10:1', 'http://localhost:1', 'http://[::1]:1'])(
    'lets plain HTTP through for the loopback address %s',
    async (url) => {
      const result = await svc(['reports', 'list'], { SVC_BASE_URL: url });
      expect(result.code).toBe(ExitCode.network);
    },
  );

  it('fails with a TLS hint when the server certificate is not trusted', async () => {
    const result = await svc(['reports', 'list'], { SVC_BASE_URL: tlsServer.url });
    expect(result.code).toBe(ExitCode.network);
    expect(result.stderr).toContain('not trusted');
    expect(result.stderr).toContain('--ca-cert');
  });

  it.each([
    ['--ca-cert', (file: string) => ({ args: ['--ca-cert', file], env: {} })],
    ['SVC_CA_CERT', (file: string) => ({ args: [], env: { SVC_CA_CERT: file } })],
  ])('trusts a private CA given with %s', async (_how, given) => {
    const { args, env } = given(caFile);
    const result = await svc(['reports', 'list', '--json', ...args], { SVC_BASE_URL: tlsServer.url, ...env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ object: 'list', data: [], has_more: false });
  });
});

describe('keys that cannot be used', () => {
  it('refuses a key with an unknown prefix without sending it', async () => {
    const before = server.requests.length;
    const result = await svc(['reports', 'list'], { SVC_API_KEY: 'sk_live_abcdefghijklmnopqrstuvwxyz' });
    expect(result.code).toBe(ExitCode.config);
    expect(result.stderr).toContain('has no known prefix');
    expect(result.stderr).not.toContain('abcdefghijklmnopqrstuvwxyz');
    expect(server.requests.length).toBe(before);
  });

  it('says how to configure a key when there is none', async () => {
    const result = await svcInProcess(['reports', 'list'], { env: isolatedEnv({ SVC_BASE_URL: server.url }) });
    expect(result.code).toBe(ExitCode.config);
    expect(result.stderr).toContain('no API key is configured');
    expect(result.stderr).toContain('svc config set api_key');
  });
});

describe('hints that say what svc did and what to do next, for the method and status at hand', () => {
  let hinted: TestServer;
  beforeAll(async () => {
    hinted = await startServer((request, response) => {
      const id = request.path.split('/').at(-1) ?? '';
      if (id === 'rep_gateway') return void response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
      if (id === 'rep_busy' || request.method === 'POST') return apiError(response, 503, 'unavailable', 'down for maintenance', { 'retry-after': '0' });
      if (id === 'rep_broken') return apiError(response, 500, 'internal_error', 'it broke');
      return apiError(response, 429, 'rate_limited', 'slow down', { 'retry-after': '0' });
    });
  });
  afterAll(() => hinted.close());
  const run = (args: string[], retries: string) =>
    svcInProcess(args, { env: isolatedEnv({ SVC_BASE_URL: hinted.url, SVC_API_KEY: KEY, SVC_RETRIES: retries }) });

  it("a 404 whose body is not the API's says the base URL looks wrong and shows what was asked", async () => {
    const result = await run(['reports', 'get', 'rep_gateway'], '0');
    expect(result.code).toBe(ExitCode.notFound);
    expect(result.stderr).toContain("the answer is not the API's (text/html, no error code): the base URL looks wrong");
    expect(result.stderr.replace(/\s+/g, ' ')).toContain(`svc asked GET ${hinted.url}/v1/reports/rep_gateway`);
    expect(result.stderr).not.toContain('check the id');
  });

  it('a GET that failed after retries says so; one never retried says how to retry', async () => {
    const retried = await run(['reports', 'get', 'rep_busy'], '2');
    expect(retried.code).toBe(ExitCode.server);
    expect(retried.stderr).toContain('the service failed 3 times (svc retried)');
    const broken = await run(['reports', 'get', 'rep_broken'], '2');
    expect(broken.stderr).toContain('the service failed to answer; try again later');
    expect(broken.stderr).not.toContain('retried');
  });

  it('a POST answered 5xx or 429 says svc never sends it twice', async () => {
    const created = await run(['reports', 'create', '--applicant', 'app_1', '--destination', 'US', '--visa-type', 'tourist', '--purpose', 'Holiday'], '3');
    expect(created.code).toBe(ExitCode.server);
    expect(created.stderr).toContain('svc never sends a POST twice, as it may have been done');
    expect(created.stderr).not.toContain('retried');
  });

  it('a 429 after svc retried says how many times it sent; without retries it suggests --retries', async () => {
    const retried = await run(['reports', 'get', 'rep_limited'], '1');
    expect(retried.code).toBe(ExitCode.rateLimited);
    expect(retried.stderr).toContain("svc waited and sent it 2 times; the plan's request rate is still exceeded — run it again in 0 s, or raise --retries");
    const once = await run(['reports', 'get', 'rep_limited'], '0');
    expect(once.stderr).toContain('or pass --retries to let svc wait');
  });
});

describe('the stated codes, read from any error body', () => {
  let coded: TestServer;
  const BODIES: Record<string, [number, unknown]> = {
    rep_revoked: [401, { message: 'This API key has been revoked', error_code: 'invalid_key' }],
    rep_locked: [403, { message: 'Not from this address', error_code: 'ip_not_allowed' }],
    rep_nested: [403, { errors: [{ meta: { reason: 'forbidden' } }], note: 'read-only key' }],
    rep_nocode: [401, { message: 'nope' }],
    rep_unclear: [403, { detail: 'Access denied' }],
  };
  beforeAll(async () => {
    coded = await startServer((request, response) => {
      const [status, body] = BODIES[request.path.split('/').at(-1) ?? ''] ?? [500, {}];
      json(response, status, body);
    });
  });
  afterAll(() => coded.close());
  const code = async (id: string) => {
    const result = await svcInProcess(['reports', 'get', id, '--json'], { env: isolatedEnv({ SVC_BASE_URL: coded.url, SVC_API_KEY: KEY, SVC_RETRIES: '0' }) });
    return (JSON.parse(result.stdout) as { error: { code: string; exit_code: number } }).error;
  };

  it.each([
    ['rep_revoked', 'invalid_key', ExitCode.auth],
    ['rep_locked', 'ip_not_allowed', ExitCode.permission],
    ['rep_nested', 'forbidden', ExitCode.permission],
    // A 401 to the well-formed bearer header svc sends is invalid_key by part 7's table.
    ['rep_nocode', 'invalid_key', ExitCode.auth],
    // Forbidden or not allowed from this address: the body does not say, and svc does not guess.
    ['rep_unclear', 'http_403', ExitCode.permission],
  ])('%s is read as %s', async (id, expected, exitCode) => {
    expect(await code(id)).toMatchObject({ code: expected, exit_code: exitCode });
  });
});
