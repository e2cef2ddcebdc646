import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { apiError, type Handler, json, startServer, type TestServer } from '../helpers/server.js';
import { svcInProcess } from '../helpers/in-process.js';
import { isolatedEnv } from '../helpers/svc.js';

const KEY = 'svc_test_reports0123456789abcdefghijklm';
const FLAGS = ['--applicant', 'app_4Jd92kQz', '--destination', 'DE', '--visa-type', 'tourist', '--purpose', 'Two weeks of sightseeing'];

/** FLAGS with one flag's value replaced. */
function flagsWith(name: string, value: string): string[] {
  return FLAGS.map((item, index) => (FLAGS[index - 1] === name ? value : item));
}

function report(status: string, extra: Record<string, unknown> = {}) {
  return {
    id: 'rep_new1',
    object: 'report',
    applicant_id: 'app_4Jd92kQz',
    destination: 'DE',
    visa_type: 'tourist',
    purpose: 'Two weeks of sightseeing',
    status,
    risk_score: null,
    score_band: null,
    criteria: null,
    recommendations: null,
    error: null,
    created_at: '2026-01-05T09:30:00Z',
    completed_at: null,
    ...extra,
  };
}

const COMPLETED = report('completed', {
  risk_score: 27,
  score_band: 'low',
  criteria: [{ key: 'financial_means', label: 'Financial means', score: 20, weight: 1, detail: 'Savings cover the stay.' }],
  recommendations: ['Attach a recent bank statement.'],
  completed_at: '2026-01-05T09:30:42Z',
});
const FAILED = report('failed', { error: { code: 'document_unreadable', message: 'The passport scan cannot be read.' }, completed_at: '2026-01-05T09:30:42Z' });

/** Answers POST /v1/reports with a queued report, then each GET with the next of `statuses` (the last one repeats). */
function lifecycle(...answers: Array<Record<string, unknown>>): Handler {
  let polls = 0;
  return (request, response) => {
    if (request.method === 'POST') return json(response, 201, report('queued'));
    json(response, 200, answers[Math.min(polls++, answers.length - 1)]);
  };
}

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

function svc(args: string[], extra: Record<string, string> = {}) {
  return svcInProcess(args, { env: isolatedEnv({ SVC_BASE_URL: server.url, SVC_API_KEY: KEY, ...extra }) });
}

describe('svc reports create', () => {
  it('sends the flags as the JSON body of POST /v1/reports and prints the report as answered with --json', async () => {
    const result = await svc(['reports', 'create', ...FLAGS, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(report('queued'));
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/reports' });
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      applicant_id: 'app_4Jd92kQz',
      destination: 'DE',
      visa_type: 'tourist',
      purpose: 'Two weeks of sightseeing',
    });
  });

  it('shows the report as `reports get` does, with the way to wait for it', async () => {
    const result = await svc(['reports', 'create', ...FLAGS]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('id\trep_new1');
    expect(result.stdout).toContain('status\tqueued');
    expect(result.stdout).toContain('svc reports wait rep_new1');
  });

  it('without a terminal, sends the flags given and warns of those left out: the spec does not say which fields are required', async () => {
    answer = (_request, response) => apiError(response, 422, 'invalid_request', 'destination is required');
    const result = await svc(['reports', 'create', '--applicant', 'app_4Jd92kQz', '--visa-type', 'work']);
    expect(result.stderr).toContain('Warning: sent without --destination, --purpose: there is no terminal to ask for them');
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({ applicant_id: 'app_4Jd92kQz', visa_type: 'work' });
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(result.stderr).toContain('422 invalid_request: destination is required');
  });

  it.each([
    [['--destination', 'deu'], 'destination "deu" must be two uppercase letters, like DE (spec part 2) (field destination)'],
    [['--destination', 'd3'], 'destination "d3" must be two uppercase letters, like DE (spec part 2) (field destination)'],
    [['--applicant', 'bob'], 'applicant_id "bob" must be an identifier starting with app_ (spec part 2) (field applicant_id)'],
    [['--applicant', 'app_'], 'applicant_id "app_" must be an identifier starting with app_ (spec part 2) (field applicant_id)'],
    [['--visa-type', 'Work Holiday'], 'visa_type "Work Holiday" must be a snake_case name, like work_holiday (spec part 2) (field visa_type)'],
  ])('refuses %j, which breaks a rule the spec states, before sending, naming the field', async ([name, value], message) => {
    const result = await svc(['reports', 'create', ...flagsWith(name!, value!)]);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('nothing was sent');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a flag that breaks a stated rule before warning of those left out: nothing is sent, and nothing says it was', async () => {
    const result = await svc(['reports', 'create', '--destination', 'DEU']);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(result.stderr).toContain('destination "DEU" must be two uppercase letters');
    expect(result.stderr).toContain('nothing was sent');
    expect(result.stderr).not.toContain('sent without');
    expect(server.requests).toHaveLength(0);
  });

  it('reports a client-side validation error as JSON with --json', async () => {
    const result = await svc(['reports', 'create', ...flagsWith('--destination', 'Germany'), '--json']);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(JSON.parse(result.stdout).error).toMatchObject({ kind: 'invalidInput', code: 'invalid_input', exit_code: ExitCode.invalidInput });
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['a visa type outside the enum openapi.yaml assumes', flagsWith('--visa-type', 'work_holiday'), { visa_type: 'work_holiday' }],
    ['an empty purpose', flagsWith('--purpose', ''), { purpose: '' }],
    ['a purpose over 500 characters', flagsWith('--purpose', 'x'.repeat(501)), { purpose: 'x'.repeat(501) }],
  ])('sends %s: only the service knows what it takes', async (_what, flags, field) => {
    const result = await svc(['reports', 'create', ...flags, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(server.requests[0]?.body ?? '')).toMatchObject(field);
  });

  it("shows the service's refusal of a visa type it does not offer", async () => {
    answer = (_request, response) => apiError(response, 422, 'invalid_visa_type', 'work_holiday is not offered for DE');
    const result = await svc(['reports', 'create', ...flagsWith('--visa-type', 'work_holiday')]);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(result.stderr).toContain('422 invalid_visa_type: work_holiday is not offered for DE');
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    [503, 'service_unavailable', ExitCode.server],
    [429, 'rate_limited', ExitCode.rateLimited],
  ])('never retries the POST, even after %i', async (status, code, exitCode) => {
    answer = (_request, response) => apiError(response, status, code, 'try later', { 'retry-after': '0' });
    const result = await svc(['reports', 'create', ...FLAGS, '--retries', '3']);
    expect(result.code).toBe(exitCode);
    expect(server.requests).toHaveLength(1);
  });
});

describe('svc reports create --wait', () => {
  it('polls GET /v1/reports/{id} at growing intervals until the report is completed, and prints it', async () => {
    answer = lifecycle(report('queued'), report('processing'), COMPLETED);
    const result = await svc(['reports', 'create', ...FLAGS, '--wait', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(COMPLETED);
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /v1/reports',
      'GET /v1/reports/rep_new1',
      'GET /v1/reports/rep_new1',
      'GET /v1/reports/rep_new1',
    ]);
    const at = server.requests.map((request) => request.at);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(450);
    expect(at[3]! - at[2]!).toBeGreaterThanOrEqual(950);
    // No terminal: no spinner, and no line in its place.
    expect(result.stderr).not.toContain('Waiting for report');
    expect(result.stderr).not.toMatch(/[\r\u001b]/);
  });

  it('shows the completed breakdown to people', async () => {
    answer = lifecycle(COMPLETED);
    const result = await svc(['reports', 'create', ...FLAGS, '--wait']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('risk score\t27\nscore band\tlow');
    expect(result.stdout).toContain('Attach a recent bank statement.');
  });

  it('exits 11 when the report ends failed, still printing it', async () => {
    answer = lifecycle(report('processing'), FAILED);
    const result = await svc(['reports', 'create', ...FLAGS, '--wait', '--json']);
    expect(result.code).toBe(ExitCode.reportFailed);
    expect(JSON.parse(result.stdout)).toEqual(FAILED);
  });

  it('exits 12 when --wait-timeout passes first, saying how to wait again', async () => {
    const result = await svc(['reports', 'create', ...FLAGS, '--wait', '--wait-timeout', '1']);
    expect(result.code).toBe(ExitCode.timedOut);
    expect(result.stderr).toContain('report rep_new1 is still queued after 1 s');
    expect(result.stderr).toContain('svc reports wait rep_new1');
    expect(server.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
  });

  it('names the report it made in the error under --json, so that a script can wait for it again', async () => {
    const result = await svc(['reports', 'create', ...FLAGS, '--wait', '--wait-timeout', '1', '--json']);
    expect(result.code).toBe(ExitCode.timedOut);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'wait_timed_out', made: { object: 'report', id: 'rep_new1' } });
  });

  it('names the report it made when the wait fails on the network, for people and under --json', async () => {
    answer = (request, response) => (request.method === 'POST' ? json(response, 201, report('queued')) : response.socket?.destroy());
    const shown = await svc(['reports', 'create', ...FLAGS, '--wait', '--retries', '0']);
    expect(shown.code).toBe(ExitCode.network);
    expect(shown.stderr).toContain('the report rep_new1 was made before this error');
    const result = await svc(['reports', 'create', ...FLAGS, '--wait', '--retries', '0', '--json']);
    expect(JSON.parse(result.stdout).error).toMatchObject({ exit_code: ExitCode.network, made: { object: 'report', id: 'rep_new1' } });
  });
});

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
    const result = await svc(['reports', 'wait', 'rep_new1', '--wait-timeout', '1', '--json']);
    expect(result.code).toBe(ExitCode.timedOut);
    expect(JSON.parse(result.stdout).error).toMatchObject({ kind: 'timedOut', code: 'wait_timed_out', exit_code: ExitCode.timedOut });
  });

  it('exits 5 for an unknown report', async () => {
    answer = (_request, response) => apiError(response, 404, 'not_found', "No such report 'rep_nope'.");
    const result = await svc(['reports', 'wait', 'rep_nope', '--retries', '0']);
    expect(result.code).toBe(ExitCode.notFound);
  });
});
