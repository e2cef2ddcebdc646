/** What the tests of `svc reports` answer with: a report in each state, and a service that walks one through them. */
import type { Applicant, Report } from '../../../src/api/types.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { type Handler, json, startServer, type TestServer } from '../../helpers/server.js';

export const KEY = 'svc_test_reports0123456789abcdefghijklm';
export const FLAGS = ['--applicant', 'app_4Jd92kQz', '--destination', 'DE', '--visa-type', 'tourist', '--purpose', 'Two weeks of sightseeing'];

/** FLAGS with one flag's value replaced. */
export function flagsWith(name: string, value: string): string[] {
  return FLAGS.map((item, index) => (FLAGS[index - 1] === name ? value : item));
}

export function report(status: string, extra: Record<string, unknown> = {}) {
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

export const COMPLETED = report('completed', {
  risk_score: 27,
  score_band: 'low',
  criteria: [{ key: 'financial_means', label: 'Financial means', score: 20, weight: 1, detail: 'Savings cover the stay.' }],
  recommendations: ['Attach a recent bank statement.'],
  completed_at: '2026-01-05T09:30:42Z',
});
export const FAILED = report('failed', {
  error: { code: 'document_unreadable', message: 'The passport scan cannot be read.' },
  completed_at: '2026-01-05T09:30:42Z',
});

/** Answers POST /v1/reports with a queued report, then each GET with the next of `statuses` (the last one repeats). */
export function lifecycle(...answers: Array<Record<string, unknown>>): Handler {
  let polls = 0;
  return (request, response) => {
    if (request.method === 'POST') return json(response, 201, report('queued'));
    json(response, 200, answers[Math.min(polls++, answers.length - 1)]);
  };
}

const HOSTILE = `<script>alert("x")</script></svg><img src=x onerror='y'>&`;

/** A report of a service whose scores run to 1000, whose band svc does not know, and whose criteria carry no labels. */
const otherReport = {
  id: 'rep_other1',
  status: 'completed',
  applicant_id: 'app_other1',
  destination: 'FR',
  visa_type: 'tourist',
  purpose: HOSTILE,
  risk_score: 640,
  score_band: 'elevated',
  criteria: [
    { key: 'funds', score: 300, weight: 0.5, detail: `${HOSTILE}\u001b]0;pwned\u0007\u001b[2J` },
    { key: HOSTILE, score: 900, weight: 0.5 },
  ],
  recommendations: [HOSTILE],
  created_at: '2026-11-20T10:00:00Z',
};

/** A report of a service that sends its criteria and recommendations in shapes the specification does not show. */
const oddReport = {
  id: 'rep_odd1',
  status: 'completed',
  risk_score: 12,
  score_band: 'low',
  criteria: [null, 'funds', 7, ['nested'], { key: 'history', score: 10, weight: 1 }],
  recommendations: 'Bring bank statements',
};
const otherReports: Record<string, unknown> = {
  '/v1/reports/rep_other1': otherReport,
  '/v1/reports/rep_odd1': oddReport,
  '/v1/reports/rep_odd2': { ...oddReport, id: 'rep_odd2', criteria: 5, recommendations: [3, null, 'Apply early'] },
};

/** A service that answers the reports of otherReports, and 404 to anything else. */
export function startOtherService(): Promise<TestServer> {
  return startServer((request, response) =>
    otherReports[request.path] ? json(response, 200, otherReports[request.path]) : json(response, 404, { error: { code: 'not_found', message: 'no' } }),
  );
}

/** A completed report of the sandbox whose profile is in `env`: an applicant made, its report made and waited for, in this process. */
export async function sandboxReport(env: Record<string, string>): Promise<Report> {
  const created = await svcInProcess(
    ['applicants', 'create', '--given-names', 'Ana', '--surname', 'Silva', '--date-of-birth', '1990-01-02', '--nationality', 'PT', '--json'],
    { env },
  );
  const applicant = JSON.parse(created.stdout) as Applicant;
  const made = await svcInProcess(
    ['reports', 'create', '--applicant', applicant.id, '--destination', 'US', '--visa-type', 'tourist', '--purpose', 'Holiday', '--wait', '--json'],
    { env },
  );
  return JSON.parse(made.stdout) as Report;
}
