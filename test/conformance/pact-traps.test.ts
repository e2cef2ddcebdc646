/**
 * The three traps of Pact's JS verifier that the kit designs around, each shown to exist and to be
 * handled: a state handler's exception, a request filter that also sees state-setup calls, message
 * providers that do not get the states' values.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Verifier } from '@pact-foundation/pact';
import { afterEach, describe, expect, it } from 'vitest';
import { CHECKS_BY_ID } from '../../src/conformance/catalogue.js';
import { SharedSetup, type KitContext } from '../../src/conformance/context.js';
import { DEFAULT_TIMEOUTS } from '../../src/conformance/kit-keys.js';
import { CONTRACT_KEYS, STATES } from '../../src/conformance/contract-terms.js';
import { DEFAULT_FIXTURES } from '../../src/conformance/fixtures.js';
import { ImplementationClient } from '../../src/conformance/http.js';
import { CheckSkipped } from '../../src/conformance/outcome.js';
import { CONTRACTS_DIR, runPactVerification } from '../../src/conformance/pact-runner.js';
import { type RecordedRequest, startServer, type TestServer } from '../helpers/server.js';
import { makeCertificate } from '../helpers/tls.js';
import { networkOf } from '../../src/api/network.js';

const KEY = 'svc_test_trapsrealkey0123456789abcdefghij';

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

/** An implementation that answers every report read with a valid completed report, whatever the id, and every applicant creation. */
function answer(request: RecordedRequest, response: import('node:http').ServerResponse): void {
  const send = (status: number, body: unknown) =>
    response.writeHead(status, { 'content-type': 'application/json', 'x-ratelimit-remaining': '99' }).end(JSON.stringify(body));
  if (request.method === 'GET' && request.path.startsWith('/v1/reports/')) send(200, { ...COMPLETED, id: request.path.split('/').at(-1) });
  else if (request.method === 'POST' && request.path === '/v1/applicants') send(201, { id: 'app_real1', object: 'applicant' });
  else send(404, { error: { code: 'not_found', message: 'no' } });
}

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function implementation(): Promise<{ server: TestServer; context: KitContext }> {
  const certificate = await makeCertificate();
  const server = await startServer(answer, certificate);
  const caCertPath = join(mkdtempSync(join(tmpdir(), 'svc-traps-')), 'ca.pem');
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
  closers.push(() => server.close());
  return { server, context: { ...base, setup: new SharedSetup(base) } };
}

const check = (id: string) => CHECKS_BY_ID.get(id)!;

describe('trap 1: an exception in a state handler does not fail verification by itself', () => {
  it('the verifier passes the interaction with the example values; the kit reports the check inconclusive with the state error, never passed', async () => {
    const { server, context } = await implementation();
    const result = await runPactVerification(context, [check('reports.get')], {
      env: process.env,
      states: { [STATES.completedReport]: () => Promise.reject(new Error('creating the report failed: 503')) },
    });
    // The trap: Pact ran "GET /v1/reports/<example id>" and the implementation answered a report for it.
    expect(result.verdicts.get('reports.get: a completed report with its full risk breakdown')).toMatch(/^ok$/i);
    expect(server.requests.map((request) => request.path)).toEqual(['/v1/reports/rep_8f3kq2LmX9']);
    expect(result.outcomes.get('reports.get')).toEqual({
      status: 'inconclusive',
      detail: 'setting up the provider state failed: creating the report failed: 503',
    });
  });

  it('a state the implementation cannot offer (an operation the specification does not show) skips the check instead', async () => {
    const { context } = await implementation();
    const result = await runPactVerification(context, [check('keys.revoke')], {
      env: process.env,
      states: { [STATES.revocableKey]: () => Promise.reject(new CheckSkipped('needs a key made through POST /v1/keys, which answered 404')) },
    });
    expect(result.outcomes.get('keys.revoke')).toEqual({ status: 'skipped', detail: 'needs a key made through POST /v1/keys, which answered 404' });
  });
});

describe("trap 2: a request filter also sees the verifier's own state-setup calls", () => {
  it("Pact's request filter is handed the state-setup calls", async () => {
    const seen: string[] = [];
    const provider: Server = createServer((_request, response) =>
      response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ ...COMPLETED, status: 'queued' })),
    );
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => provider.close(resolve)));
    const pactFile = join(mkdtempSync(join(tmpdir(), 'svc-traps-')), 'pact.json');
    const contract = JSON.parse((await import('node:fs')).readFileSync(join(CONTRACTS_DIR, 'svc-visa-report-service.json'), 'utf8'));
    contract.interactions = contract.interactions.filter((interaction: { description: string }) => interaction.description.startsWith('reports.create:'));
    writeFileSync(pactFile, JSON.stringify(contract));
    const verified = await new Verifier({
      providerBaseUrl: `http://127.0.0.1:${(provider.address() as AddressInfo).port}`,
      pactUrls: [pactFile],
      logLevel: 'error',
      stateHandlers: { [STATES.applicant]: async () => ({ applicantId: 'app_x' }) },
      requestFilter: (request: { path: string }, _response: unknown, next: () => void) => {
        seen.push(request.path);
        next();
      },
    })
      .verifyProvider()
      .then(() => true);
    expect(verified).toBe(true);
    expect(seen).toContain('/_pactSetup');
    expect(seen).toContain('/v1/reports');
  });

  it('the kit uses no request filter: its forwarder puts the real key in, and only the interactions reach it', async () => {
    const { server, context } = await implementation();
    const result = await runPactVerification(context, [check('applicants.create'), check('reports.get')], {
      env: process.env,
      states: { [STATES.completedReport]: async () => ({ reportId: 'rep_real1' }) },
    });
    expect(result.outcomes.get('applicants.create')?.status).toBe('passed');
    expect(result.outcomes.get('reports.get')?.status).toBe('passed');
    expect(result.forwarded.sort()).toEqual(['GET /v1/reports/rep_real1', 'POST /v1/applicants']);
    expect(server.requests.map((request) => `${request.method} ${request.path}`).sort()).toEqual(['GET /v1/reports/rep_real1', 'POST /v1/applicants']);
    for (const request of server.requests) expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(server.requests)).not.toContain(CONTRACT_KEYS.api);
  });
});

describe("trap 3: message providers run in-process and do not receive the states' return values", () => {
  it('a state that hands the event over as its return value leaves the message unverified: the check is inconclusive, never passed', async () => {
    const { context } = await implementation();
    const event = { id: 'evt_1', type: 'report.completed', created_at: '2026-01-05T09:30:42Z', data: { id: 'rep_real1', risk_score: 27 } };
    const result = await runPactVerification({ ...context, receiver: undefined }, [check('events.report-completed')], {
      env: process.env,
      states: { [STATES.reportCompleted]: async () => ({ reportId: 'rep_real1', event: JSON.stringify(event) }) },
    });
    expect(result.outcomes.get('events.report-completed')?.status).toBe('inconclusive');
    expect(result.outcomes.get('events.report-completed')?.detail).toContain('no delivery was found');
  });
});
