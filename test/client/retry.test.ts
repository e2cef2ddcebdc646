import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/core/errors.js';
import { apiError, json, startServer, type TestServer } from '../helpers/server.js';
import { networkOf } from '../../src/api/network.js';

const KEY = 'svc_test_retrypolicy0000000000000001';
const FAST = { retries: 3, baseDelayMs: 20, maxDelayMs: 80, maxRetryAfterMs: 5_000 };
const REPORT_ID = 'rep_abc123';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function clientFor(url: string, retry = FAST) {
  return createApiClient({ baseUrl: new URL(url), key: KEY, network: networkOf({}), retry, timeoutMs: 2_000 });
}

async function failureOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const list = { object: 'list', data: [], has_more: false };

describe('retry policy', () => {
  it.each([429, 502, 503, 504])('retries a GET after %i and returns the later success', async (status) => {
    server = await startServer((_request, response, index) => (index < 2 ? apiError(response, status, 'transient', 'try again') : json(response, 200, list)));
    const answer = await clientFor(server.url).GET('/v1/reports');
    expect(JSON.parse(answer.text)).toEqual(list);
    expect(server.requests).toHaveLength(3);
  });

  it('retries a DELETE after 503', async () => {
    server = await startServer((_request, response, index) =>
      index === 0 ? apiError(response, 503, 'unavailable', 'busy') : json(response, 200, { id: REPORT_ID, object: 'report', deleted: true }),
    );
    await clientFor(server.url).DELETE('/v1/reports/{id}', { path: { id: REPORT_ID } });
    expect(server.requests.map((request) => request.method)).toEqual(['DELETE', 'DELETE']);
  });

  it('never retries a POST, whatever the status', async () => {
    server = await startServer((_request, response) => apiError(response, 503, 'unavailable', 'busy'));
    const error = await failureOf(
      clientFor(server.url).POST('/v1/reports', { body: { applicant_id: 'app_1', destination: 'DE', visa_type: 'tourist', purpose: 'holiday' } }),
    );
    expect(error.kind).toBe('server');
    expect(server.requests).toHaveLength(1);
  });

  it('never retries a POST whose connection broke after it was sent', async () => {
    server = await startServer((_request, response) => response.socket?.destroy());
    const error = await failureOf(
      clientFor(server.url).POST('/v1/reports', { body: { applicant_id: 'app_1', destination: 'DE', visa_type: 'tourist', purpose: 'holiday' } }),
    );
    expect(error.kind).toBe('network');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a GET whose connection broke, then succeeds', async () => {
    server = await startServer((_request, response, index) => (index === 0 ? response.socket?.destroy() : json(response, 200, list)));
    const answer = await clientFor(server.url).GET('/v1/reports');
    expect(JSON.parse(answer.text)).toEqual(list);
    expect(server.requests).toHaveLength(2);
  });

  it.each([400, 401, 403, 404, 422, 500])('does not retry a GET answered %i', async (status) => {
    server = await startServer((_request, response) => apiError(response, status, 'some_code', 'no'));
    await failureOf(clientFor(server.url).GET('/v1/reports'));
    expect(server.requests).toHaveLength(1);
  });

  it('bounds the attempts: the first one plus the configured retries', async () => {
    server = await startServer((_request, response) => apiError(response, 503, 'unavailable', 'busy'));
    const error = await failureOf(clientFor(server.url, { ...FAST, retries: 2 }).GET('/v1/reports'));
    expect(error.status).toBe(503);
    expect(server.requests).toHaveLength(3);
  });

  it('honours Retry-After between attempts', async () => {
    server = await startServer((_request, response, index) =>
      index === 0 ? apiError(response, 429, 'rate_limited', 'slow down', { 'retry-after': '1' }) : json(response, 200, list),
    );
    await clientFor(server.url).GET('/v1/reports');
    const [first, second] = server.requests;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_000);
  });

  it('reports a 429 at once when Retry-After is longer than it is willing to wait', async () => {
    server = await startServer((_request, response) => apiError(response, 429, 'quota_exceeded', 'monthly quota used', { 'retry-after': '86400' }));
    const error = await failureOf(clientFor(server.url).GET('/v1/reports'));
    expect(error.kind).toBe('rateLimited');
    expect(error.retryAfterSeconds).toBe(86_400);
    expect(server.requests).toHaveLength(1);
  });

  it('backs off exponentially between attempts, with equal jitter: half of base·2^(n-1), plus up to as much again', async () => {
    server = await startServer((_request, response) => apiError(response, 502, 'bad_gateway', 'upstream'));
    const slept: number[] = [];
    const clock = {
      now: () => 0,
      sleep: (ms: number) => {
        slept.push(ms);
        return Promise.resolve();
      },
    };
    const draws = [0, 0.5, 0.75];
    const client = createApiClient({
      baseUrl: new URL(server.url),
      key: KEY,
      network: networkOf({}),
      retry: { retries: 3, baseDelayMs: 100, maxDelayMs: 300, maxRetryAfterMs: 0 },
      retryTiming: { clock, random: () => draws.shift()! },
    });
    await failureOf(client.GET('/v1/reports'));
    // 100 → 50 + 0·50; 200 → 100 + 0.5·100; 400, capped at 300 → 150 + 0.75·150.
    expect(slept).toEqual([50, 150, 262.5]);
    expect(server.requests).toHaveLength(4);
  });

  it('gives up on an unanswered request after the timeout', async () => {
    server = await startServer(() => undefined);
    const client = createApiClient({ baseUrl: new URL(server.url), key: KEY, network: networkOf({}), retry: { ...FAST, retries: 1 }, timeoutMs: 300 });
    const error = await failureOf(client.GET('/v1/reports'));
    expect(error.code).toBe('timeout');
    expect(error.kind).toBe('network');
    expect(server.requests).toHaveLength(2);
  });
});

describe('what every request carries', () => {
  it('sends the bearer key and reports X-RateLimit-Remaining (--verbose)', async () => {
    server = await startServer((_request, response) => json(response, 200, list, { 'x-ratelimit-remaining': '7' }));
    const lines: string[] = [];
    const client = createApiClient({ baseUrl: new URL(server.url), key: KEY, network: networkOf({}), retry: FAST, log: (line) => lines.push(line) });
    await client.GET('/v1/reports');
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(lines.at(-1)).toMatch(/^GET .*\/v1\/reports → 200 in \d+ ms · X-RateLimit-Remaining: 7$/);
  });

  it('reports X-RateLimit-Remaining of error answers too', async () => {
    server = await startServer((_request, response) => apiError(response, 404, 'not_found', 'no such report', { 'x-ratelimit-remaining': '3' }));
    const lines: string[] = [];
    const client = createApiClient({ baseUrl: new URL(server.url), key: KEY, network: networkOf({}), retry: FAST, log: (line) => lines.push(line) });
    await failureOf(client.GET('/v1/reports/{id}', { path: { id: REPORT_ID } }));
    expect(lines.at(-1)).toMatch(/→ 404 in \d+ ms · X-RateLimit-Remaining: 3$/);
  });
});
