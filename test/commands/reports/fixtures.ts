/** What the tests of `svc reports` answer with: a report in each state, and a service that walks one through them. */
import { type Handler, json } from '../../helpers/server.js';

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
