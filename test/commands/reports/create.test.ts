import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { apiError, type Handler, json, startServer, type TestServer } from '../../helpers/server.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { steppingClock } from '../../helpers/clock.js';
import type { Clock } from '../../../src/core/clock.js';
import { COMPLETED, FAILED, FLAGS, flagsWith, KEY, lifecycle, report } from './fixtures.js';

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
    const clock = steppingClock();
    const result = await svc(['reports', 'create', ...FLAGS, '--wait', '--json'], clock);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(COMPLETED);
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /v1/reports',
      'GET /v1/reports/rep_new1',
      'GET /v1/reports/rep_new1',
      'GET /v1/reports/rep_new1',
    ]);
    expect(clock.slept).toEqual([500, 1000]);
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
    const clock = steppingClock();
    const result = await svc(['reports', 'create', ...FLAGS, '--wait', '--wait-timeout', '30'], clock);
    expect(result.code).toBe(ExitCode.timedOut);
    // Polls at 500 ms, doubling up to 5 s, the last sleep cut to the deadline: 30 s of its clock, none of the test's.
    expect(clock.slept).toEqual([500, 1000, 2000, 4000, 5000, 5000, 5000, 5000, 2500]);
    expect(server.requests.filter((request) => request.method === 'GET')).toHaveLength(10);
    expect(result.stderr).toContain('report rep_new1 is still queued after 30 s');
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
