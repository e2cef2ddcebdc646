import { reportOutcome } from '../api/report-outcome.js';
import type { Answered, Criterion, ReportAnswer } from '../api/types.js';
import { type Cell, hangingLine, presentFields, renderTable } from './table.js';
import { terminalText } from './terminal-text.js';
import type { TimeView } from './time.js';

function percent(weight: number): string {
  return `${(weight * 100).toFixed(weight * 100 % 1 === 0 ? 0 : 1)}%`;
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A criterion's score times its weight, when both are numbers. */
function weighted(criterion: Answered<Criterion>): number | undefined {
  const score = numberOr(criterion.score);
  const weight = numberOr(criterion.weight);
  return score === undefined || weight === undefined ? undefined : score * weight;
}

function failure(error: ReportAnswer['error']): string | undefined {
  if (!error) return undefined;
  return [error.code, error.message].filter((part) => typeof part === 'string' && part !== '').join(': ') || undefined;
}

/**
 * The full breakdown of one report, as `svc reports get` shows it to people: the fields the answer
 * carries, in svc's order; fields it lacks get no row, fields svc does not know are left to --json.
 */
export function renderReport(report: ReportAnswer, times: TimeView): string {
  const parts = [
    presentFields([
      ['id', report.id],
      ['status', report.status],
      ['applicant', report.applicant_id],
      ['destination', report.destination],
      ['visa type', report.visa_type],
      ['purpose', report.purpose],
      ['created', times.full(report.created_at)],
      ['finished', times.full(report.completed_at)],
      ['risk score', report.risk_score],
      ['score band', report.score_band],
      ['error', failure(report.error)],
    ]),
  ];
  const criteria = Array.isArray(report.criteria) ? report.criteria : [];
  if (criteria.length) {
    const rows: Cell[][] = [...criteria]
      .sort((a, b) => (weighted(b) ?? Number.NEGATIVE_INFINITY) - (weighted(a) ?? Number.NEGATIVE_INFINITY))
      .map((criterion) => {
        const weight = numberOr(criterion.weight);
        return [criterion.label ?? criterion.key, criterion.score, weight === undefined ? undefined : percent(weight), weighted(criterion)?.toFixed(1), criterion.detail];
      });
    parts.push('Criteria (highest weighted risk first)', renderTable(['criterion', 'score', 'weight', 'weighted', { title: 'detail', freeText: true }], rows));
  }
  const recommendations = Array.isArray(report.recommendations) ? report.recommendations : [];
  if (recommendations.length) parts.push('Recommendations', recommendations.map((line) => hangingLine('  • ', terminalText(String(line)))).join('\n'));
  if (reportOutcome(report) === 'unfinished' && report.id) {
    parts.push(`The analysis is not finished yet: \`svc reports wait ${terminalText(report.id)}\` waits for it.`);
  }
  return parts.filter(Boolean).join('\n\n');
}

export function renderReportRows(reports: ReportAnswer[], times: TimeView): string {
  return renderTable(
    ['id', 'status', { title: 'applicant', leaveOut: 1 }, { title: 'destination', leaveOut: 3 }, { title: 'visa type', leaveOut: 2 }, 'score', 'band', 'created'],
    reports.map((report) => [report.id, report.status, report.applicant_id, report.destination, report.visa_type, report.risk_score, report.score_band, times.short(report.created_at)]),
  );
}
