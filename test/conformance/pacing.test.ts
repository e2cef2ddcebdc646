/**
 * The kit paces itself by X-RateLimit-Remaining and waits out 429 Retry-After, so that a key of a
 * small plan (Free: 10 requests a minute) completes a run, slowly. The requests are real; the time is
 * a test clock that the server's window and the kit share, which moves only when the kit waits: how
 * long a request takes on a busy machine changes nothing.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { ImplementationClient, type ImplementationClientOptions } from '../../src/conformance/http.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { makeCertificate } from '../helpers/tls.js';
import { steppingClock } from '../helpers/clock.js';
import { networkOf } from '../../src/api/network.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function client(
  server: TestServer,
  certificate: { cert: string },
  windowMs: number,
  clock: Clock,
  options: Pick<ImplementationClientOptions, 'reserve' | 'rate'> = {},
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
    ...options,
  });
  closers.push(() => server.close());
  return { client: made, lines };
}

const get = (made: ImplementationClient) =>
  made.send({ method: 'GET', path: '/v1/reports', authorization: 'Bearer svc_test_pacing0123456789abcdefghijkl', role: 'api', purpose: 'preflight' });

it('waits when X-RateLimit-Remaining reaches 0, so a fixed window of 3 requests is never exceeded', async () => {
  const certificate = await makeCertificate();
  const clock = steppingClock();
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

/**
 * A server with a fixed window of `limit` requests a minute for every key of one workspace, on the
 * test's clock: which window each request fell in, by key, and the 429s. The keys of `elsewhere`
 * belong to other workspaces, each answered with the X-RateLimit-Remaining it names.
 */
async function workspaceServer(limit: number, clock: Clock, elsewhere: Record<string, number> = {}) {
  const certificate = await makeCertificate();
  const WINDOW_MS = 60_000;
  let window = { startedAt: -Infinity, used: 0, index: -1 };
  const served: Array<{ window: number; key: string; status: number }> = [];
  const server = await startServer((request, response) => {
    const now = clock.now();
    if (now - window.startedAt >= WINDOW_MS) window = { startedAt: now, used: 0, index: window.index + 1 };
    const key = String(request.headers.authorization);
    const remainingElsewhere = elsewhere[key];
    if (remainingElsewhere !== undefined) return json(response, 200, { data: [] }, { 'x-ratelimit-remaining': String(remainingElsewhere) });
    const allowed = window.used < limit;
    served.push({ window: window.index, key, status: allowed ? 200 : 429 });
    if (!allowed) return json(response, 429, { error: { code: 'rate_limited' } }, { 'x-ratelimit-remaining': '0', 'retry-after': '1' });
    window.used++;
    json(response, 200, { data: [] }, { 'x-ratelimit-remaining': String(limit - window.used) });
  }, certificate);
  /** How many requests of `key` each window served. */
  const perWindow = (key: string) =>
    served
      .filter((entry) => entry.key === key && entry.status === 200)
      .reduce<number[]>((counts, entry) => ((counts[entry.window] = (counts[entry.window] ?? 0) + 1), counts), []);
  return { server, certificate, served, perWindow };
}

const KIT_KEY = 'Bearer svc_test_pacing0123456789abcdefghijkl';
const NEIGHBOUR_KEY = 'Bearer svc_test_neighbour0123456789abcdefgh';
const OTHER_WORKSPACE_KEY = 'Bearer svc_test_elsewhere0123456789abcdefgh';

describe('a good citizen of a shared workspace', () => {
  it("leaves a quarter of each window to the workspace's other clients: a neighbour that comes after it in the window is served", async () => {
    const clock = steppingClock();
    const { server, certificate, served, perWindow } = await workspaceServer(12, clock);
    const { client: made, lines } = await client(server, certificate, 60_000, clock);
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(made)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    // 9 of the 12 in each window, a quarter left; then a window waited for.
    expect(perWindow(KIT_KEY)).toEqual([9, 9, 2]);
    expect(clock.slept).toEqual([60_000, 60_000]);
    expect(lines[0]).toBe(
      'X-RateLimit-Remaining is 3: waiting 60 s before the next request, a minute after the answer (no reset stated): the kit leaves the last 3 of the window to others',
    );
    // A neighbour in the window the kit is in now gets the three the kit left.
    const neighbour = await Promise.all(
      Array.from({ length: 3 }, () => made.send({ method: 'GET', path: '/v1/reports', authorization: NEIGHBOUR_KEY, role: 'other', purpose: 'preflight' })),
    );
    expect(neighbour.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(served.filter((entry) => entry.status === 429)).toEqual([]);
  });

  it("keeps to each credential's own window: a key of another workspace on a larger plan does not shrink this one's share", async () => {
    const clock = steppingClock();
    const { server, certificate, perWindow } = await workspaceServer(12, clock, { [OTHER_WORKSPACE_KEY]: 999 });
    const { client: made } = await client(server, certificate, 60_000, clock);
    await made.send({ method: 'GET', path: '/v1/reports', authorization: OTHER_WORKSPACE_KEY, role: 'other', purpose: 'preflight' });
    await Promise.all(Array.from({ length: 20 }, () => get(made)));
    expect(perWindow(KIT_KEY)).toEqual([9, 9, 2]);
    expect(clock.slept).toEqual([60_000, 60_000]);
  });

  it('uses the whole window with --rate-limit-reserve 0', async () => {
    const clock = steppingClock();
    const { server, certificate, perWindow } = await workspaceServer(12, clock);
    const { client: made } = await client(server, certificate, 60_000, clock, { reserve: 0 });
    await Promise.all(Array.from({ length: 20 }, () => get(made)));
    expect(perWindow(KIT_KEY)).toEqual([12, 8]);
    expect(clock.slept).toEqual([60_000]);
  });

  it('sends no more than --rate-limit allows in any span of its unit, on its own clock, whatever the implementation allows', async () => {
    const clock = steppingClock();
    const arrivals: number[] = [];
    const certificate = await makeCertificate();
    const server = await startServer((_request, response) => {
      arrivals.push(clock.now());
      json(response, 200, { data: [] }, { 'x-ratelimit-remaining': '999' });
    }, certificate);
    const { client: made } = await client(server, certificate, 60_000, clock, { rate: { requests: 3, perMs: 60_000, text: '3/m' } });
    // One after the other, so that each arrives at the time it was let go.
    for (let sent = 0; sent < 6; sent++) await get(made);
    const start = arrivals[0]!;
    expect(arrivals.map((at) => at - start)).toEqual([0, 0, 0, 60_000, 60_000, 60_000]);
    // Every kind of request: the seventh, in plain HTTP, waits for the third minute too.
    await made.plainHttp('/v1/reports', KIT_KEY);
    expect(clock.now() - start).toBe(120_000);
  });
});

it('waits out the window of a server that opens it when the request arrives, however late that is', async () => {
  const certificate = await makeCertificate();
  const clock = steppingClock();
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
  const clock = steppingClock();
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

/**
 * The wait after an answer with X-RateLimit-Remaining: 0, when that answer also carries `headers`
 * (the server's Date is the test clock's unless `headers` gives one).
 */
async function waitAfter(headers: (clock: Clock) => Record<string, string>): Promise<{ slept: number[]; lines: string[] }> {
  const certificate = await makeCertificate();
  const clock = steppingClock();
  const server = await startServer((_request, response, index) => {
    const stated = index === 0 ? { 'x-ratelimit-remaining': '0', ...headers(clock) } : { 'x-ratelimit-remaining': '9' };
    json(response, 200, { data: [] }, { date: new Date(clock.now()).toUTCString(), ...stated });
  }, certificate);
  const { client: made, lines } = await client(server, certificate, 60_000, clock);
  await get(made);
  await get(made);
  return { slept: clock.slept, lines };
}

const epochSeconds = (clock: Clock, later: number) => String(Math.floor(clock.now() / 1000) + later);

describe('on X-RateLimit-Remaining: 0, the wait the service states', () => {
  it('X-RateLimit-Reset as the seconds left in the window', async () => {
    const { slept, lines } = await waitAfter(() => ({ 'x-ratelimit-reset': '7' }));
    expect(slept).toEqual([7_000]);
    expect(lines).toEqual(['X-RateLimit-Remaining is 0: waiting 7 s before the next request, until the end of the window its X-RateLimit-Reset gives']);
  });

  it('X-RateLimit-Reset as the end of the window in epoch seconds', async () => {
    expect((await waitAfter((clock) => ({ 'x-ratelimit-reset': epochSeconds(clock, 12) }))).slept).toEqual([12_000]);
  });

  it('X-RateLimit-Reset in epoch seconds, read by the Date of the answer when the two clocks differ', async () => {
    // The service's clock is 30 s behind the kit's: its window ends 10 s after its answer, not 20 s before.
    const { slept } = await waitAfter((clock) => ({
      date: new Date(clock.now() - 30_000).toUTCString(),
      'x-ratelimit-reset': String(Math.floor((clock.now() - 30_000) / 1000) + 10),
    }));
    expect(slept).toEqual([10_000]);
  });

  it('X-RateLimit-Reset as an HTTP date', async () => {
    expect((await waitAfter((clock) => ({ 'x-ratelimit-reset': new Date(clock.now() + 15_000).toUTCString() }))).slept).toEqual([15_000]);
  });

  it('Retry-After, in seconds or as a date', async () => {
    expect((await waitAfter(() => ({ 'retry-after': '4' }))).slept).toEqual([4_000]);
    expect((await waitAfter((clock) => ({ 'retry-after': new Date(clock.now() + 9_000).toUTCString() }))).slept).toEqual([9_000]);
  });

  it('both: the longer, so that neither is cut short', async () => {
    expect((await waitAfter(() => ({ 'retry-after': '20', 'x-ratelimit-reset': '5' }))).slept).toEqual([20_000]);
    expect((await waitAfter(() => ({ 'retry-after': '3', 'x-ratelimit-reset': '25' }))).slept).toEqual([25_000]);
  });

  it('at most 120 s, however long it says', async () => {
    expect((await waitAfter(() => ({ 'x-ratelimit-reset': '86400' }))).slept).toEqual([120_000]);
    expect((await waitAfter((clock) => ({ 'x-ratelimit-reset': epochSeconds(clock, 7_200) }))).slept).toEqual([120_000]);
  });

  it('a minute after the answer when what it says is no wait: a reset passed, a value of no known form', async () => {
    for (const reset of [(clock: Clock) => epochSeconds(clock, -30), () => 'soon', () => '-5', () => '12 seconds', () => '']) {
      const { slept, lines } = await waitAfter((clock) => ({ 'x-ratelimit-reset': reset(clock) }));
      expect(slept).toEqual([60_000]);
      expect(lines).toEqual(['X-RateLimit-Remaining is 0: waiting 60 s before the next request, a minute after the answer (no reset stated)']);
    }
  });
});
