import type { Report } from '../api/types.js';
import { renderFields, renderTable } from './table.js';

function percent(weight: number): string {
  return `${(weight * 100).toFixed(weight * 100 % 1 === 0 ? 0 : 1)}%`;
}

/** The full breakdown of one report, as `svc reports get` shows it to people. */
export function renderReport(report: Report): string {
  const fields: Array<[string, string | number | null]> = [
    ['id', report.id],
    ['status', report.status],
    ['applicant', report.applicant_id],
    ['destination', report.destination],
    ['visa type', report.visa_type],
    ['purpose', report.purpose],
    ['created', report.created_at],
  ];
  if (report.completed_at) fields.push(['finished', report.completed_at]);
  if (report.risk_score !== null) fields.push(['risk score', `${report.risk_score} / 100 (${report.score_band ?? 'no band'})`]);
  if (report.error) fields.push(['error', `${report.error.code}: ${report.error.message}`]);

  const parts = [renderFields(fields)];
  if (report.criteria?.length) {
    const rows = [...report.criteria]
      .sort((a, b) => b.score * b.weight - a.score * a.weight)
      .map((criterion) => [criterion.label ?? criterion.key, criterion.score, percent(criterion.weight), (criterion.score * criterion.weight).toFixed(1), criterion.detail ?? '']);
    parts.push('Criteria (highest weighted risk first)', renderTable(['criterion', 'score', 'weight', 'weighted', 'detail'], rows));
  }
  if (report.recommendations?.length) {
    parts.push('Recommendations', report.recommendations.map((line) => `  • ${line}`).join('\n'));
  }
  if (report.status === 'queued' || report.status === 'processing') {
    parts.push(`The analysis is not finished yet: \`svc reports wait ${report.id}\` waits for it.`);
  }
  return parts.join('\n\n');
}

export function renderReportRows(reports: Report[]): string {
  return renderTable(
    ['id', 'status', 'applicant', 'destination', 'visa type', 'score', 'band', 'created'],
    reports.map((report) => [report.id, report.status, report.applicant_id, report.destination, report.visa_type, report.risk_score, report.score_band, report.created_at]),
  );
}
