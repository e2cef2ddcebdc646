import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { apiError, type Handler, json, startServer, type TestServer } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

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
  return runSvc(args, { env: isolatedEnv({ SVC_BASE_URL: server.url, SVC_API_KEY: KEY, ...extra }) });
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
    expect(JSON.parse(request?.body ?? '')).toEqual({ applicant_id: 'app_4Jd92kQz', destination: 'DE', visa_type: 'tourist', purpose: 'Two weeks of sightseeing' });
  });

  it('shows the report as `reports get` does, with the way to wait for it', async () => {
    const result = await svc(['reports', 'create', ...FLAGS]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('id\trep_new1');
    expect(result.stdout).toContain('status\tqueued');
    expect(result.stdout).toContain('svc reports wait rep_new1');
  });

  it('without a terminal, names every missing flag, exits 2 and sends nothing', async () => {
    const result = await svc(['reports', 'create', '--applicant', 'app_4Jd92kQz', '--visa-type', 'work']);
    expect(result.code).toBe(ExitCode.usage);
    expect(result.stderr).toContain('missing --destination, --purpose');
    expect(result.stderr).toContain('no terminal');
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [['--destination', 'de'], 'destination: must match ^[A-Z]{2}$ (field destination)'],
    [['--applicant', 'bob'], 'applicant_id: must match ^app_[A-Za-z0-9]+$ (field applicant_id)'],
    [['--purpose', ''], 'purpose: must NOT have fewer than 1 characters (field purpose)'],
  ])('refuses %j before sending, naming the field', async ([name, value], message) => {
    const result = await svc(['reports', 'create', ...flagsWith(name!, value!)]);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('nothing was sent');
    expect(server.requests).toHaveLength(0);
  });

  it('reports a client-side validation error as JSON with --json', async () => {
    const result = await svc(['reports', 'create', ...flagsWith('--destination', 'Germany'), '--json']);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(JSON.parse(result.stdout).error).toMatchObject({ kind: 'invalidInput', code: 'invalid_input', exit_code: ExitCode.invalidInput });
    expect(server.requests).toHaveLength(0);
  });

  it('offers only the visa types of the contract', async () => {
    const result = await svc(['reports', 'create', ...flagsWith('--visa-type', 'holiday')]);
    expect(result.code).toBe(ExitCode.usage);
    expect(result.stderr.replace(/\s+›?\s*/g, ' ')).toContain('tourist, business, student, work, transit, family');
    expect(server.requests).toHaveLength(0);
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
    // No terminal on stderr: no spinner, one line.
    expect(result.stderr.match(/Waiting for report rep_new1…\n/g)).toHaveLength(1);
    expect(result.stderr).not.toMatch(/[\r\u001b]/);
  });

  it('shows the completed breakdown to people', async () => {
    answer = lifecycle(COMPLETED);
    const result = await svc(['reports', 'create', ...FLAGS, '--wait']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('risk score\t27 / 100 (low)');
    expect(result.stdout).toContain('Attach a recent bank statement.');
  });

  it('exits 11 when the report ends failed, still printing it', async () => {
    answer = lifecycle(report('processing'), FAILED);
    const result = await svc(['reports', 'create', ...FLAGS, '--wait', '--json']);
    expect(result.code).toBe(ExitCode.reportFailed);
    expect(JSON.parse(result.stdout)).toEqual(FAILED);
  });

  it('exits 12 when --wait-timeout passes first, saying how to wait again', async () => {
    const started = performance.now();
    const result = await svc(['reports', 'create', ...FLAGS, '--wait', '--wait-timeout', '1']);
    expect(result.code).toBe(ExitCode.timedOut);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.stderr).toContain('report rep_new1 is still queued after 1 s');
    expect(result.stderr).toContain('svc reports wait rep_new1');
    expect(server.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
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
