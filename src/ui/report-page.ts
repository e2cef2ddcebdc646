import { RISK_BAND_LOWEST_SCORES } from '../spec/enums.js';
import type { ReportAnswer } from '../api/types.js';
import { bandName, byContribution, contribution, criteriaOf, numberOr, percent, recommendationsOf, scaledScore } from './risk.js';

const BAND_COLOUR: Record<string, string> = { low: '#15803d', medium: '#ca8a04', high: '#dc2626', very_high: '#991b1b' };
const BAR_COLOUR = '#2563eb';

/** Text from an answer, made inert in HTML: as element content and as a quoted attribute value. */
function escape(value: unknown): string {
  return String((value as string | number | undefined) ?? '').replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function field(name: string, value: unknown): string {
  return value === null || value === undefined || value === '' ? '' : `<dt>${escape(name)}</dt><dd>${escape(value)}</dd>`;
}

/** svc's 0–100 scale, its bands in their colours, a mark at the score. */
function scaleChart(score: number, band: string): string {
  const width = 600;
  const x = (value: number) => (value / 100) * width;
  const bands = Object.entries(RISK_BAND_LOWEST_SCORES);
  const segments = bands.map(([name, lowest], index) => {
    const end = bands[index + 1]?.[1] ?? 100;
    const colour = BAND_COLOUR[name] ?? '#6b7280';
    return `<rect x="${x(lowest)}" y="24" width="${x(end - lowest)}" height="18" fill="${colour}" opacity="${name === band ? 1 : 0.25}"/><text x="${x(lowest) + 4}" y="16" class="mark">${escape(bandName(name))}</text><text x="${x(lowest)}" y="60" class="mark">${lowest}</text>`;
  });
  const at = x(Math.min(100, Math.max(0, score)));
  return `<svg class="scale" viewBox="-8 0 ${width + 16} 70" role="img" aria-label="Risk score ${score} of 100, band ${escape(bandName(band))}">${segments.join('')}<text x="${width}" y="60" class="mark" text-anchor="end">100</text><path d="M${at - 7} 50 L${at + 7} 50 L${at} 41 Z" fill="#111827"/></svg>`;
}

/** Each criterion's weighted contribution as a horizontal bar, the largest first, scaled to the largest. */
function criteriaChart(report: ReportAnswer): string {
  const criteria = byContribution(criteriaOf(report));
  const largest = Math.max(0, ...criteria.map((criterion) => contribution(criterion) ?? 0));
  const row = 30;
  const barWidth = 360;
  const rows = criteria.map((criterion, index) => {
    const value = contribution(criterion);
    const length = largest > 0 ? (Math.max(0, value ?? 0) / largest) * barWidth : 0;
    const y = index * row;
    const weight = numberOr(criterion.weight);
    const figures = `${value === undefined ? '?' : value.toFixed(1)} (score ${numberOr(criterion.score) ?? '?'} × ${weight === undefined ? '?' : percent(weight)})`;
    return `<text x="190" y="${y + 19}" text-anchor="end">${escape(criterion.label ?? criterion.key)}</text><rect x="200" y="${y + 6}" width="${length.toFixed(1)}" height="18" rx="2" fill="${BAR_COLOUR}"/><text x="${(210 + length).toFixed(1)}" y="${y + 19}" class="figure">${escape(figures)}</text>`;
  });
  return `<svg class="criteria" viewBox="0 0 800 ${Math.max(1, criteria.length) * row}" role="img" aria-label="Weighted contribution of each criterion to the risk score">${rows.join('')}</svg>`;
}

/**
 * A report as one self-contained HTML page: no script, and a Content-Security-Policy that lets the
 * page load nothing at all, so that opening it reaches no network; every value from the answer is
 * escaped. Times are the answer's, exact: the page is read later than it is written.
 */
export function reportPage(report: ReportAnswer, writtenAt: Date): string {
  const scaled = scaledScore(report);
  const band = typeof report.score_band === 'string' ? report.score_band : undefined;
  const score = numberOr(report.risk_score);
  const headline = scaled
    ? `<p class="headline">Risk score <strong>${scaled.score}</strong> of 100, <span class="band" style="color:${BAND_COLOUR[scaled.band] ?? 'inherit'}">${escape(bandName(scaled.band))}</span></p>${scaleChart(scaled.score, scaled.band)}`
    : score !== undefined || band
      ? `<p class="headline">Risk score <strong>${escape(score ?? 'not given')}</strong>${band ? `, band <span class="band" style="color:${BAND_COLOUR[band] ?? 'inherit'}">${escape(bandName(band))}</span>` : ''}</p>`
      : '';
  const criteria = byContribution(criteriaOf(report));
  const details = criteria
    .filter((criterion) => typeof criterion.detail === 'string' && criterion.detail !== '')
    .map((criterion) => `<dt>${escape(criterion.label ?? criterion.key)}</dt><dd>${escape(criterion.detail)}</dd>`)
    .join('');
  const recommendations = recommendationsOf(report)
    .map((line) => `<li>${escape(line)}</li>`)
    .join('');
  const error = report.error ? [report.error.code, report.error.message].filter(Boolean).join(': ') : undefined;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Visa risk report ${escape(report.id)}</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; color: #111827; background: #fff; margin: 0; }
main { max-width: 52rem; margin: 2rem auto; padding: 0 1.5rem; }
h1 { font-size: 1.5rem; margin-bottom: 0.25rem; }
h2 { font-size: 1.15rem; margin-top: 2rem; }
code { font-size: 0.9em; }
.headline { font-size: 1.25rem; }
.band { font-weight: 600; }
dl.fields { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1.5rem; }
dl.fields dt { color: #6b7280; }
dl.fields dd, dl.details dd { margin: 0; }
dl.details dt { font-weight: 600; margin-top: 0.75rem; }
svg { width: 100%; height: auto; font: 13px system-ui, sans-serif; }
svg .mark { fill: #374151; }
svg .figure { fill: #374151; }
footer { margin-top: 3rem; color: #6b7280; font-size: 0.85rem; }
</style>
</head>
<body>
<main>
<h1>Visa risk report <code>${escape(report.id)}</code></h1>
${headline}
<dl class="fields">${field('Status', report.status)}${field('Applicant', report.applicant_id)}${field('Destination', report.destination)}${field('Visa type', report.visa_type)}${field('Purpose', report.purpose)}${field('Created', report.created_at)}${field('Finished', report.completed_at)}${field('Error', error)}</dl>
${criteria.length ? `<h2>Criteria, by weighted contribution to the risk score</h2>\n${criteriaChart(report)}` : ''}
${details ? `<dl class="details">${details}</dl>` : ''}
${recommendations ? `<h2>Recommendations</h2>\n<ul>${recommendations}</ul>` : ''}
<footer>Written by svc on ${escape(writtenAt.toISOString())} from the service's answer; times are UTC.</footer>
</main>
</body>
</html>
`;
}
