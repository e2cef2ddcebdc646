import { reportOutcome } from '../api/report-outcome.js';
import type { ReportAnswer } from '../api/types.js';
import {
  byContribution,
  contribution,
  criteriaBars,
  criteriaOf,
  numberOr,
  paintedBand,
  percent,
  recommendationsOf,
  riskPicture,
  scaledScore,
  scoreScale,
} from './risk.js';
import type { Output } from './io.js';
import { type Cell, hangingLine, presentFields, renderTable, Styled } from './table.js';
import { terminalText } from './terminal-text.js';
import type { TimeView } from './time.js';

function failure(error: ReportAnswer['error']): string | undefined {
  if (!error) return undefined;
  return [error.code, error.message].filter((part) => typeof part === 'string' && part !== '').join(': ') || undefined;
}

/** The criteria as tab-separated lines, for scripts reading a pipe. */
function criteriaLines(report: ReportAnswer, out: Output): string {
  const rows: Cell[][] = byContribution(criteriaOf(report)).map((criterion) => {
    const weight = numberOr(criterion.weight);
    return [
      criterion.label ?? criterion.key,
      criterion.score,
      weight === undefined ? undefined : percent(weight),
      contribution(criterion)?.toFixed(1),
      criterion.detail,
    ];
  });
  return renderTable(['criterion', 'score', 'weight', 'weighted', 'detail'], rows, out);
}

/**
 * The full breakdown of one report, as `svc reports get` shows it to people: the fields the answer
 * carries, in svc's order (fields it lacks get no row, fields svc does not know are left to
 * --json). On a terminal the risk is a picture: the score on svc's 0–100 scale with its band in
 * colour, where the answer fits that scale, and each criterion's contribution as a bar.
 */
export function renderReport(report: ReportAnswer, times: TimeView, out: Output): string {
  const picture = out.isTTY ? riskPicture(out) : undefined;
  const scaled = picture && scaledScore(report);
  const band = picture && typeof report.score_band === 'string' ? new Styled(paintedBand(report.score_band, picture)) : report.score_band;
  const parts = [
    presentFields(
      [
        ['id', report.id],
        ['status', report.status],
        ['applicant', report.applicant_id],
        ['destination', report.destination],
        ['visa type', report.visa_type],
        ['purpose', report.purpose],
        ['created', times.full(report.created_at)],
        ['finished', times.full(report.completed_at)],
        ...(scaled
          ? ([['risk score', new Styled(`${scaled.score} of 100, ${paintedBand(scaled.band, picture)}`)]] as Array<[string, Cell]>)
          : ([
              ['risk score', report.risk_score],
              ['score band', band],
            ] as Array<[string, Cell]>)),
        ['error', failure(report.error)],
      ],
      out,
    ),
  ];
  if (scaled) parts.push(scoreScale(scaled.score, scaled.band, picture));
  const criteria = criteriaOf(report);
  if (criteria.length) {
    parts.push(
      picture ? 'Criteria, by weighted contribution to the risk score' : 'Criteria (highest weighted risk first)',
      picture ? criteriaBars(criteria, picture, out) : criteriaLines(report, out),
    );
  }
  const recommendations = recommendationsOf(report);
  if (recommendations.length) parts.push('Recommendations', recommendations.map((line) => hangingLine('  • ', terminalText(line), out)).join('\n'));
  if (reportOutcome(report) === 'unfinished' && report.id) {
    parts.push(`The analysis is not finished yet: \`svc reports wait ${terminalText(String(report.id))}\` waits for it.`);
  }
  return parts.filter(Boolean).join('\n\n');
}

export function renderReportRows(reports: ReportAnswer[], times: TimeView, out: Output): string {
  return renderTable(
    [
      'id',
      'status',
      { title: 'applicant', leaveOut: 1 },
      { title: 'destination', leaveOut: 3 },
      { title: 'visa type', leaveOut: 2 },
      'score',
      'band',
      'created',
    ],
    reports.map((report) => [
      report.id,
      report.status,
      report.applicant_id,
      report.destination,
      report.visa_type,
      report.risk_score,
      report.score_band,
      times.short(report.created_at),
    ]),
    out,
  );
}
