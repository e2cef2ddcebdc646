/**
 * A gateway's transient answer (a 429, or a 502, 503 or 504 with Retry-After) is no verdict of the
 * implementation: the kit's client waits it out as asked and sends the request again, within bounds,
 * for the probes and for the Pact verifier's requests alike; a request that never gets past it is a
 * TransientAnswer (its check inconclusive), never the answer a check judges. The requests are real;
 * the time is a test clock that moves only when the kit waits, and the servers' Date headers tell it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { CHECKS_BY_ID } from '../../src/conformance/catalogue.js';
import { SharedSetup, type KitContext } from '../../src/conformance/context.js';
import { STATES } from '../../src/conformance/contract-terms.js';
import { DEFAULT_FIXTURES } from '../../src/conformance/fixtures.js';
import { ImplementationClient, type SendOptions } from '../../src/conformance/http.js';
import { DEFAULT_TIMEOUTS } from '../../src/conformance/kit-keys.js';
import { runPactVerification } from '../../src/conformance/pact-runner.js';
import { TransientAnswer } from '../../src/conformance/transient-answers.js';
import { networkOf } from '../../src/api/network.js';
import { json, type RecordedRequest, startServer, type TestServer } from '../helpers/server.js';
import { makeCertificate } from '../helpers/tls.js';
import { steppingClock } from '../helpers/clock.js';

const KEY = 'svc_test_blipsrealkey0123456789abcdefghij';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Answers a request, by the test clock that the kit waits on. */
type Answer = (request: RecordedRequest, response: ServerResponse, index: number, clock: Clock) => void;

async function implementation(
  answer: Answer,
  basePath = '',
): Promise<{ server: TestServer; client: ImplementationClient; clock: ReturnType<typeof steppingClock>; lines: string[] }> {
  const certificate = await makeCertificate();
  const clock = steppingClock();
  const server = await startServer((request, response, index) => answer(request, response, index, clock), certificate);
  closers.push(() => server.close());
  const caCertPath = join(mkdtempSync(join(tmpdir(), 'svc-blips-')), 'ca.pem');
  writeFileSync(caCertPath, certificate.cert);
  const lines: string[] = [];
  const client = new ImplementationClient({
    baseUrl: new URL(`${server.url}${basePath}`),
    network: networkOf({}, { caCert: { path: caCertPath, source: 'the test' } }),
    clock,
    log: (line) => lines.push(line),
  });
  return { server, client, clock, lines };
}

/** The implementation's clock as its headers give it: the Date of its answer, and a Retry-After `seconds` later as an HTTP date. */
function datedRetry(clock: Clock, seconds: number): Record<string, string> {
  return { date: new Date(clock.now()).toUTCString(), 'retry-after': new Date(clock.now() + seconds * 1000).toUTCString() };
}

const request = (method: string, path: string): SendOptions => ({
  method,
  path,
  authorization: `Bearer ${KEY}`,
  role: 'api',
  purpose: 'reports.get',
  ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
});

describe('the probes: a transient answer is waited out and the request sent again', () => {
  it('a GET answered 503 with a Retry-After date is sent again once the date has come; its check sees the final answer', async () => {
    const made = await implementation((_request, response, index, clock) =>
      index === 0 ? json(response, 503, { message: 'down for maintenance' }, datedRetry(clock, 3)) : json(response, 200, { id: 'rep_1', object: 'report' }),
    );
    const answer = await made.client.send(request('GET', '/v1/reports/rep_1'));
    expect(answer.status).toBe(200);
    expect(made.clock.slept).toEqual([3_000]);
    expect(made.server.requests).toHaveLength(2);
    expect(made.lines).toContain('503 on GET /v1/reports/rep_1: waiting 3 s (Retry-After) before sending it again');
  });

  it("names the path asked, the base URL's own path included", async () => {
    const made = await implementation(
      (_request, response, index, clock) => (index === 0 ? json(response, 503, {}, datedRetry(clock, 2)) : json(response, 200, { id: 'rep_1' })),
      '/visa-api',
    );
    expect((await made.client.send(request('GET', '/v1/reports/rep_1'))).status).toBe(200);
    expect(made.server.requests.map((sent) => sent.path)).toEqual(['/visa-api/v1/reports/rep_1', '/visa-api/v1/reports/rep_1']);
    expect(made.lines).toEqual(['503 on GET /visa-api/v1/reports/rep_1: waiting 2 s (Retry-After) before sending it again']);
  });

  it.each([429, 502, 504])('a GET answered %i with Retry-After in seconds likewise', async (status) => {
    const made = await implementation((_request, response, index) =>
      index === 0 ? json(response, status, { message: 'try again' }, { 'retry-after': '2' }) : json(response, 200, { data: [] }),
    );
    expect((await made.client.send(request('GET', '/v1/reports'))).status).toBe(200);
    expect(made.clock.slept).toEqual([2_000]);
    expect(made.client.exchanges.map((exchange) => exchange.status)).toEqual([status, 200]);
  });

  it.each([500, 502, 503, 504])('a %i without Retry-After is the implementation’s answer: not sent again', async (status) => {
    const made = await implementation((_request, response) => json(response, status, { message: 'broken' }));
    expect((await made.client.send(request('GET', '/v1/reports/rep_1'))).status).toBe(status);
    expect(made.server.requests).toHaveLength(1);
    expect(made.clock.slept).toEqual([]);
  });

  it('a blip that never clears is a TransientAnswer naming it, after 4 attempts', async () => {
    const made = await implementation((_request, response, _index, clock) => json(response, 503, { message: 'down for maintenance' }, datedRetry(clock, 2)));
    const sent = made.client.send(request('GET', '/v1/reports/rep_1'));
    await expect(sent).rejects.toBeInstanceOf(TransientAnswer);
    await expect(sent).rejects.toThrow('503 with Retry-After on GET /v1/reports/rep_1, 4 attempts (6 s waited)');
    expect(made.server.requests).toHaveLength(4);
    expect(made.clock.slept).toEqual([2_000, 2_000, 2_000]);
  });

  it('a Retry-After beyond what the kit waits for one request is not waited for', async () => {
    const made = await implementation((_request, response) => json(response, 503, { message: 'back in an hour' }, { 'retry-after': '3600' }));
    await expect(made.client.send(request('GET', '/v1/reports/rep_1'))).rejects.toThrow(
      '503 with Retry-After on GET /v1/reports/rep_1, 1 attempt: it asked to wait 3600 s, beyond the 60 s the kit waits for one request',
    );
    expect(made.server.requests).toHaveLength(1);
    expect(made.clock.slept).toEqual([]);
  });

  it('a 429 asking longer than the kit waits (a monthly quota) is not waited for', async () => {
    const made = await implementation((_request, response) => json(response, 429, { error: { code: 'quota_exceeded' } }, { 'retry-after': '86400' }));
    await expect(made.client.send(request('GET', '/v1/reports'))).rejects.toThrow(
      'GET /v1/reports answered 429 asking to wait 86400 s (Retry-After), longer than the kit waits (120 s)',
    );
    expect(made.server.requests).toHaveLength(1);
  });

  it('a POST answered 503 with Retry-After is sent again (the service did not take it on)', async () => {
    const made = await implementation((_request, response, index) =>
      index === 0 ? json(response, 503, { message: 'busy' }, { 'retry-after': '1' }) : json(response, 201, { id: 'rep_1' }),
    );
    expect((await made.client.send(request('POST', '/v1/reports'))).status).toBe(201);
    expect(made.server.requests.map((sent) => sent.body)).toEqual(['{}', '{}']);
  });

  it.each([502, 504])('a POST answered %i with Retry-After is not sent again, for it may have been processed: a TransientAnswer', async (status) => {
    const made = await implementation((_request, response) => json(response, status, { message: 'upstream' }, { 'retry-after': '1' }));
    await expect(made.client.send(request('POST', '/v1/reports'))).rejects.toThrow(
      `${status} with Retry-After on POST /v1/reports: not sent again, for a POST may have been processed behind a ${status}`,
    );
    expect(made.server.requests).toHaveLength(1);
  });

  it('a wait logged for a path that carries an id of the implementation’s shows its control characters escaped', async () => {
    const made = await implementation((_request, response, index) =>
      index === 0 ? json(response, 503, { message: 'busy' }, { 'retry-after': '1' }) : json(response, 200, {}),
    );
    await made.client.send(request('GET', '/v1/reports/rep_\u001b[2Jx'));
    expect(made.lines).toEqual(['503 on GET /v1/reports/rep_\\u001b[2Jx: waiting 1 s (Retry-After) before sending it again']);
  });

  it('a request sent unpaced (the provoked 429) is never sent again', async () => {
    const made = await implementation((_request, response) => json(response, 503, { message: 'busy' }, { 'retry-after': '1' }));
    expect((await made.client.sendUnpaced(request('GET', '/v1/reports/rep_1'))).status).toBe(503);
    expect(made.server.requests).toHaveLength(1);
  });
});

const COMPLETED = {
  id: 'rep_real1',
  object: 'report',
  applicant_id: 'app_real1',
  destination: 'DE',
  visa_type: 'tourist',
  purpose: 'Two weeks of holiday in Berlin and Munich, visiting museums',
  status: 'completed',
  risk_score: 27,
  score_band: 'low',
  criteria: [{ key: 'financial_means', score: 20, weight: 1 }],
  recommendations: [],
  created_at: '2026-01-05T09:30:00Z',
};

async function pactContext(answer: Answer): Promise<{ server: TestServer; context: KitContext }> {
  const made = await implementation(answer);
  const base = {
    level: 'spec' as const,
    client: made.client,
    keys: { api: KEY },
    receiver: undefined,
    fixtures: DEFAULT_FIXTURES,
    timeouts: DEFAULT_TIMEOUTS,
    clock: made.clock,
    log: () => undefined,
  };
  return { server: made.server, context: { ...base, setup: new SharedSetup(base) } };
}

describe("the Pact verifier's requests, through the kit's forwarder", () => {
  const states = { [STATES.completedReport]: async () => ({ reportId: 'rep_real1', applicantId: 'app_real1' }) };
  const reportsGet = [CHECKS_BY_ID.get('reports.get')!];

  it('a 503 with a Retry-After date is retried away: the verifier sees the report, and the check passes', async () => {
    let reads = 0;
    const { server, context } = await pactContext((sent, response, _index, clock) => {
      if (sent.method !== 'GET') return json(response, 404, { error: { code: 'not_found' } });
      if (reads++ === 0) return json(response, 503, { message: 'down for maintenance' }, datedRetry(clock, 1));
      json(response, 200, COMPLETED);
    });
    const result = await runPactVerification(context, reportsGet, { env: process.env, states });
    expect(server.requests.map((sent) => `${sent.method} ${sent.path}`)).toEqual(['GET /v1/reports/rep_real1', 'GET /v1/reports/rep_real1']);
    expect(result.outcomes.get('reports.get')).toEqual({ status: 'passed', detail: 'the implementation answered as the contract says' });
  });

  it('a blip that never clears makes the interaction inconclusive with the reason, never failed', async () => {
    const { server, context } = await pactContext((_sent, response, _index, clock) =>
      json(response, 503, { message: 'down for maintenance' }, datedRetry(clock, 1)),
    );
    const result = await runPactVerification(context, reportsGet, { env: process.env, states });
    expect(server.requests).toHaveLength(4);
    // What the verifier made of the forwarder's 502 is overruled: the request never got the implementation's answer.
    expect(result.verdicts.get('reports.get: a completed report with its full risk breakdown')).not.toMatch(/^ok$/i);
    expect(result.outcomes.get('reports.get')).toEqual({
      status: 'inconclusive',
      detail: '503 with Retry-After on GET /v1/reports/rep_real1, 4 attempts (3 s waited)',
    });
  });
});

it('a request the verifier gives up on while the kit waits (its own request timeout) makes the interaction inconclusive, never failed', async () => {
  const certificate = await makeCertificate();
  // Real time: the verifier's timeout is.
  const server = await startServer(
    (_sent, response, index) =>
      index === 0 ? json(response, 503, { message: 'down for maintenance' }, { 'retry-after': '3' }) : json(response, 200, COMPLETED),
    certificate,
  );
  closers.push(() => server.close());
  const caCertPath = join(mkdtempSync(join(tmpdir(), 'svc-blips-')), 'ca.pem');
  writeFileSync(caCertPath, certificate.cert);
  const client = new ImplementationClient({ baseUrl: new URL(server.url), network: networkOf({}, { caCert: { path: caCertPath, source: 'the test' } }) });
  const base = {
    level: 'spec' as const,
    client,
    keys: { api: KEY },
    receiver: undefined,
    fixtures: DEFAULT_FIXTURES,
    timeouts: DEFAULT_TIMEOUTS,
    log: () => undefined,
  };
  const result = await runPactVerification({ ...base, setup: new SharedSetup(base) }, [CHECKS_BY_ID.get('reports.get')!], {
    env: process.env,
    states: { [STATES.completedReport]: async () => ({ reportId: 'rep_real1', applicantId: 'app_real1' }) },
    timeoutMs: 1_000,
  });
  expect(result.outcomes.get('reports.get')).toEqual({
    status: 'inconclusive',
    detail: 'the Pact verifier stopped waiting for GET /v1/reports/rep_real1 while the kit waited for the implementation (its rate limit, a transient answer)',
  });
});
