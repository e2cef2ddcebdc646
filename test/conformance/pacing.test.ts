/**
 * The kit paces itself by X-RateLimit-Remaining and waits out 429 Retry-After, so that a key of a
 * small plan (Free: 10 requests a minute) completes a run, slowly. The requests are real; the time is
 * a test clock that the server's window and the kit share, which moves only when the kit waits: how
 * long a request takes on a busy machine changes nothing.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { ImplementationClient } from '../../src/conformance/http.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { makeCertificate } from '../helpers/tls.js';
import { networkOf } from '../../src/api/network.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A clock that stands still until slept on; it records each sleep. */
function testClock(): Clock & { slept: number[] } {
  let now = Date.parse('2026-11-25T12:00:00Z');
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: (ms) => {
      slept.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

async function client(
  server: TestServer,
  certificate: { cert: string },
  windowMs: number,
  clock: Clock,
): Promise<{ client: ImplementationClient; lines: string[] }> {
  const caCertPath = join(mkdtempSync(join(tmpdir(), 'svc-pacing-')), 'ca.pem');
  writeFileSync(caCertPath, certificate.cert);
  const lines: string[] = [];
  const made = new ImplementationClient({
    baseUrl: new URL(server.url),
    network: networkOf({}, { caCert: { path: caCertPath, source: 'the test' } }),
    windowMs,
    clock,
    log: (line) => lines.push(line),
  });
  closers.push(() => server.close());
  return { client: made, lines };
}

const get = (made: ImplementationClient) =>
  made.send({ method: 'GET', path: '/v1/reports', authorization: 'Bearer svc_test_pacing0123456789abcdefghijkl', role: 'api', purpose: 'preflight' });

it('waits when X-RateLimit-Remaining reaches 0, so a fixed window of 3 requests is never exceeded', async () => {
  const certificate = await makeCertificate();
  const clock = testClock();
  const LIMIT = 3;
  const WINDOW_MS = 60_000;
  let window = { startedAt: -Infinity, used: 0 };
  const server = await startServer((_request, response) => {
    const now = clock.now();
    if (now - window.startedAt >= WINDOW_MS) window = { startedAt: now, used: 0 };
    if (window.used >= LIMIT) return json(response, 429, { error: { code: 'rate_limited' } }, { 'x-ratelimit-remaining': '0', 'retry-after': '1' });
    window.used++;
    json(response, 200, { data: [] }, { 'x-ratelimit-remaining': String(LIMIT - window.used) });
  }, certificate);
  const { client: made, lines } = await client(server, certificate, WINDOW_MS, clock);
  const answers = await Promise.all(Array.from({ length: 8 }, () => get(made)));
  expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
  expect(made.exchanges.filter((exchange) => exchange.status === 429)).toEqual([]);
  // After the 3rd and the 6th answer, a whole window.
  expect(clock.slept).toEqual([WINDOW_MS, WINDOW_MS]);
  expect(lines.filter((line) => line.includes('X-RateLimit-Remaining is 0: waiting 60 s'))).toHaveLength(2);
});

it('waits out the window of a server that opens it when the request arrives, however late that is', async () => {
  const certificate = await makeCertificate();
  const clock = testClock();
  const WINDOW_MS = 60_000;
  // The first request reaches the server 5 s after it left the kit (a new connection's TLS handshake on a busy
  // machine), the next one at once; the window opens when the first arrives.
  let opened: number | undefined;
  const server = await startServer((_request, response) => {
    if (opened === undefined) {
      void clock.sleep(5_000);
      opened = clock.now();
    }
    if (clock.now() - opened < WINDOW_MS && server.requests.length > 1)
      return json(response, 429, { error: { code: 'rate_limited' } }, { 'x-ratelimit-remaining': '0', 'retry-after': '1' });
    json(response, 200, { data: [] }, { 'x-ratelimit-remaining': '0' });
  }, certificate);
  const { client: made } = await client(server, certificate, WINDOW_MS, clock);
  expect((await get(made)).status).toBe(200);
  expect((await get(made)).status).toBe(200);
  expect(made.exchanges.map((exchange) => exchange.status)).toEqual([200, 200]);
});

it('on 429 waits Retry-After and sends the request again, a POST included (a 429 was not processed)', async () => {
  const certificate = await makeCertificate();
  const server = await startServer((request, response, index) => {
    if (index === 0) return json(response, 429, { error: { code: 'rate_limited' } }, { 'x-ratelimit-remaining': '0', 'retry-after': '1' });
    json(response, 201, { id: 'rep_1', method: request.method }, { 'x-ratelimit-remaining': '5' });
  }, certificate);
  const clock = testClock();
  const { client: made, lines } = await client(server, certificate, 60_000, clock);
  const answer = await made.send({
    method: 'POST',
    path: '/v1/reports',
    authorization: 'Bearer svc_test_pacing0123456789abcdefghijkl',
    role: 'api',
    purpose: 'preflight',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(answer.status).toBe(201);
  expect(clock.slept).toEqual([1_000]);
  expect(server.requests).toHaveLength(2);
  expect(server.requests[1]!.body).toBe('{}');
  // The 429 is recorded too: the checks on every answer (X-RateLimit-Remaining on errors) see it.
  expect(made.exchanges.map((exchange) => exchange.status)).toEqual([429, 201]);
  expect(lines.join('\n')).toContain('429 on POST /v1/reports: waiting 1 s (Retry-After)');
});
