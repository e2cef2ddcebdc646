/**
 * Issue 43 item 4: a run has budgets for what the implementation asks of it, beside the bounds of
 * each request: the time it waits at its request in all (--max-wait-total, 30 minutes) and the
 * transient answers it takes in a row (--max-transient-answers, 40). Past either, the run stops at
 * once: every check it had not decided is inconclusive with the reason, the --json and the JUnit
 * report say so (the run record's `stopped`), and the exit code is 18. The requests are real; the
 * time is the kit's clock, a stepping clock that moves only when the kit waits, so that a run that
 * waits half an hour takes a moment.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import type { ConformanceJson } from '../../src/conformance/report.js';
import { svcInProcess } from '../helpers/in-process.js';
import { json, type RecordedRequest, startServer } from '../helpers/server.js';
import { isolatedEnv } from '../helpers/svc.js';
import { makeCertificate } from '../helpers/tls.js';
import { steppingClock } from '../helpers/clock.js';

const API_KEY = `svc_test_${'b'.repeat(32)}`;
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

type Answer = (request: RecordedRequest, response: ServerResponse, index: number) => void;

/** `svc contract verify --fast --json --junit` against an implementation that answers as `answer` does, on a stepping clock. */
async function verify(answer: Answer, flags: string[] = []) {
  const certificate = await makeCertificate();
  const server = await startServer(answer, certificate);
  closers.push(() => server.close());
  const dir = mkdtempSync(join(tmpdir(), 'svc-run-budgets-'));
  const caCert = join(dir, 'ca.pem');
  writeFileSync(caCert, certificate.cert);
  const junit = join(dir, 'contract.xml');
  const clock = steppingClock();
  const started = clock.now();
  const result = await svcInProcess(['contract', 'verify', '--base-url', server.url, '--ca-cert', caCert, '--fast', '--json', '--junit', junit, ...flags], {
    env: isolatedEnv({ SVC_API_KEY: API_KEY }),
    clock,
  });
  const output = JSON.parse(result.stdout) as ConformanceJson;
  return { result, output, server, junit: readFileSync(junit, 'utf8'), waitedMs: clock.now() - started };
}

const rateLimited = (response: ServerResponse, retryAfter: string) =>
  json(response, 429, { error: { code: 'rate_limited', message: 'too many requests' } }, { 'retry-after': retryAfter, 'x-ratelimit-remaining': '0' });

/**
 * Every check the run did not skip for want of an input is inconclusive, with `reason`, but those
 * decided before the run stopped (`decided`: the plain-HTTP probe, which needs no answer over
 * HTTPS); how many there were.
 */
function inconclusiveChecks(output: ConformanceJson, reason: string, decided: string[] = []): number {
  const ran = output.checks.filter((check) => check.status !== 'skipped' && !decided.includes(check.id));
  for (const check of ran)
    expect({ id: check.id, status: check.status, detail: check.detail }).toEqual({ id: check.id, status: 'inconclusive', detail: reason });
  expect(output.verdict).toBe('inconclusive');
  expect(output.failed).toBe(0);
  return ran.length;
}

describe('the budget for waiting at the implementation’s request', () => {
  it('stops a run against an implementation that answers 429 to everything with Retry-After: 120 once it has waited 30 minutes: exit 18, every check inconclusive, --json and JUnit say why', async () => {
    const { result, output, server, junit, waitedMs } = await verify((_request, response) => rateLimited(response, '120'));
    const reason =
      "the run had waited 1800 s at the implementation's request when a 429 to GET /v1/reports asked for 120 s more, past the run's budget of 1800 s (--max-wait-total): the kit stopped the run";
    expect(result.code, result.stderr).toBe(ExitCode.inconclusive);
    expect(output.run.stopped).toEqual({ budget: 'waits', message: reason });
    expect(output.run.budgets.waits).toEqual({ waited_ms: 1_800_000, limit_ms: 1_800_000 });
    expect(inconclusiveChecks(output, reason)).toBe(output.checks.length - output.skipped);
    expect(output.inconclusive).toBeGreaterThan(10);
    // The first request, sent 16 times: 15 waits of 120 s, and the 16th refused. Before, 21 times and 40 minutes, then exit 9.
    expect(server.requests).toHaveLength(16);
    expect(waitedMs).toBe(1_800_000);
    expect(result.stderr).toContain(reason);
    expect(junit).toContain(`<property name="stopped.message" value="${reason.replace(/'/g, '&apos;')}"/>`);
    expect(junit).toContain('<property name="stopped.budget" value="waits"/>');
    expect(junit).toMatch(/<testsuites name="svc contract verify" tests="\d+" failures="0" errors="\d+"/);
  });

  it('stops at --max-wait-total a run whose report never finishes (its reads answered 429 with Retry-After: 120), and still deletes the report, with one request', async () => {
    const { result, output, server, waitedMs } = await verify(
      (request, response) => {
        if (request.method === 'GET' && request.path === '/v1/reports') return json(response, 200, { data: [] });
        if (request.method === 'POST' && request.path === '/v1/applicants') return json(response, 201, { id: 'app_budget1' });
        if (request.method === 'POST' && request.path === '/v1/reports') return json(response, 201, { id: 'rep_budget1', status: 'queued' });
        if (request.method === 'POST' && request.path === '/v1/documents') return json(response, 201, { id: 'doc_budget1', status: 'analysed' });
        if (request.method === 'DELETE') return json(response, 200, { deleted: true });
        rateLimited(response, '120');
      },
      ['--max-wait-total', '10m', '--only', 'reports.get'],
    );
    expect(result.code, result.stderr).toBe(ExitCode.inconclusive);
    expect(output.run.stopped?.budget).toBe('waits');
    expect(output.run.stopped?.message).toBe(
      "the run had waited 600 s at the implementation's request when a 429 to GET /v1/reports/rep_budget1 asked for 120 s more, past the run's budget of 600 s (--max-wait-total): the kit stopped the run",
    );
    expect(inconclusiveChecks(output, output.run.stopped!.message)).toBe(1);
    expect(waitedMs).toBe(600_000);
    // The report it made is deleted after the stop, with one request: the run waits no more.
    const deletes = server.requests.filter((request) => request.method === 'DELETE');
    expect(deletes.map((request) => request.path)).toEqual(['/v1/reports/rep_budget1']);
    expect(server.requests.at(-1)).toBe(deletes[0]);
    // …and its answer is taken: the cleanup reports no problem.
    expect(result.stderr).not.toContain('Cleanup:');
  });
});

describe('the budget for transient answers in a row', () => {
  it('stops a run past 40 transient answers in a row, however short the waits they ask for', async () => {
    const { result, output, server, waitedMs } = await verify((_request, response, index) =>
      index === 0 ? json(response, 200, { data: [] }) : rateLimited(response, '0'),
    );
    expect(result.code, result.stderr).toBe(ExitCode.inconclusive);
    expect(output.run.stopped?.budget).toBe('transient_answers');
    expect(output.run.stopped?.message).toMatch(
      /^the implementation gave 41 transient answers in a row \(the last a 429 to \w+ \S+\), past the run's budget of 40 \(--max-transient-answers\): the kit stopped the run$/,
    );
    expect(output.run.budgets.transient_answers).toEqual({ most_in_a_row: 41, limit_in_a_row: 40 });
    expect(inconclusiveChecks(output, output.run.stopped!.message, ['transport.https-only'])).toBeGreaterThan(10);
    // The preflight, the 41 transient answers, and what was already on its way to the implementation when the run stopped.
    expect(server.requests.length).toBeGreaterThanOrEqual(42);
    expect(server.requests.length).toBeLessThan(50);
    expect(waitedMs).toBe(0);
  });

  it('takes --max-transient-answers, and counts a gateway’s 503 with Retry-After as transient too', async () => {
    const { result, output, server } = await verify(
      (_request, response, index) =>
        index === 0 ? json(response, 200, { data: [] }) : json(response, 503, { message: 'down for maintenance' }, { 'retry-after': '1' }),
      ['--max-transient-answers', '5'],
    );
    expect(result.code, result.stderr).toBe(ExitCode.inconclusive);
    expect(output.run.stopped?.message).toMatch(
      /^the implementation gave 6 transient answers in a row \(the last a 503 to \w+ \S+\), past the run's budget of 5/,
    );
    expect(inconclusiveChecks(output, output.run.stopped!.message, ['transport.https-only'])).toBeGreaterThan(10);
    expect(server.requests.length).toBeGreaterThanOrEqual(7);
  });
});
