import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Applicant, Report } from '../../../src/api/types.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { createApplicant, parsed, REPORT_FLAGS } from '../../helpers/sandbox-cli.js';
import { ExitCode } from '../../../src/core/errors.js';
import { apiError, type Handler, startServer, type TestServer } from '../../helpers/server.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { steppingClock } from '../../helpers/clock.js';
import type { Clock } from '../../../src/core/clock.js';
import { COMPLETED, FAILED, KEY, lifecycle, report } from './fixtures.js';

let server: TestServer;
let answer: Handler;
beforeAll(async () => {
  server = await startServer((request, response, index) => answer(request, response, index));
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  answer = lifecycle(report('queued'));
});

/** Runs svc on `clock`, a stepping one unless told: a wait passes without waiting for real. */
function svc(args: string[], clock: Clock = steppingClock()) {
  return svcInProcess(args, { env: isolatedEnv({ SVC_BASE_URL: server.url, SVC_API_KEY: KEY }), clock });
}

describe('svc reports wait', () => {
  it('polls until the report is completed and prints it with --json', async () => {
    answer = lifecycle(report('processing'), COMPLETED);
    const result = await svc(['reports', 'wait', 'rep_new1', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(COMPLETED);
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /v1/reports/rep_new1', 'GET /v1/reports/rep_new1']);
  });

  it('returns at once for a report that has already finished', async () => {
    answer = lifecycle(FAILED);
    const result = await svc(['reports', 'wait', 'rep_new1']);
    expect(result.code).toBe(ExitCode.reportFailed);
    expect(result.stdout).toContain('error\tdocument_unreadable: The passport scan cannot be read.');
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    ['a status that reads as a failure', report('errored')],
    ['another one', report('rejected')],
    ['an error object, whatever the status', report('done', { error: { code: 'document_unreadable', message: 'The passport scan cannot be read.' } })],
  ])('takes %s for a failed report (exit 11): the spec does not name the failed status', async (_what, failed) => {
    answer = lifecycle(report('pending'), failed);
    const result = await svc(['reports', 'wait', 'rep_new1', '--json']);
    expect(result.code).toBe(ExitCode.reportFailed);
    expect(JSON.parse(result.stdout)).toEqual(failed);
    expect(server.requests).toHaveLength(2);
  });

  it('waits on a status it does not know up to --wait-timeout, saying so once, rather than guessing it finished', async () => {
    answer = lifecycle(report('on_hold'));
    const result = await svc(['reports', 'wait', 'rep_new1', '--wait-timeout', '1']);
    expect(result.code).toBe(ExitCode.timedOut);
    expect(result.stderr.match(/has status "on_hold", which svc does not know: it waits for completed or a failure, up to 1 s/g)).toHaveLength(1);
    expect(result.stderr).toContain('report rep_new1 is still on_hold after 1 s');
    expect(server.requests.length).toBeGreaterThan(1);
  });

  it('names no status it knows as waiting', async () => {
    answer = lifecycle(report('pending'), COMPLETED);
    const result = await svc(['reports', 'wait', 'rep_new1']);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('does not know');
  });

  it('refuses an id that is not a report id before sending (exit 6)', async () => {
    const result = await svc(['reports', 'wait', 'app_4Jd92kQz']);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(result.stderr).toContain('id "app_4Jd92kQz" must be an identifier starting with rep_');
    expect(server.requests).toHaveLength(0);
  });

  it('exits 12 after --wait-timeout, with the error as JSON under --json', async () => {
    const clock = steppingClock();
    const result = await svc(['reports', 'wait', 'rep_new1', '--wait-timeout', '3600', '--json'], clock);
    expect(result.code).toBe(ExitCode.timedOut);
    // An hour of its clock, waited without waiting: the deadline is the clock's, and so are the sleeps up to it.
    expect(clock.slept.reduce((sum, ms) => sum + ms, 0)).toBe(3_600_000);
    expect(Math.max(...clock.slept)).toBe(5000);
    expect(JSON.parse(result.stdout).error).toMatchObject({ kind: 'timedOut', code: 'wait_timed_out', exit_code: ExitCode.timedOut });
  });

  it('exits 5 for an unknown report', async () => {
    answer = (_request, response) => apiError(response, 404, 'not_found', "No such report 'rep_nope'.");
    const result = await svc(['reports', 'wait', 'rep_nope', '--retries', '0']);
    expect(result.code).toBe(ExitCode.notFound);
  });
});

describe('svc reports wait against the sandbox', () => {
  let sandbox: InProcessSandbox;
  let applicant: Applicant;
  beforeAll(async () => {
    sandbox = await startSandboxInProcess();
    applicant = await createApplicant(sandbox);
  });
  afterAll(() => sandbox.stop());

  it('reports wait follows a report to its end', async () => {
    const env = sandbox.env;
    const report = parsed<Report>(await svcInProcess(['reports', 'create', '--applicant', applicant.id, ...REPORT_FLAGS, '--json'], { env }));
    expect(report.status).toBe('queued');
    expect(parsed<Report>(await svcInProcess(['reports', 'wait', report.id, '--json'], { env })).status).toBe('completed');
  });
});
