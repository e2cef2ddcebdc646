import { RISK_BAND_LOWEST_SCORES } from '../spec/enums.js';
import type { Answered, Criterion, ReportAnswer } from '../api/types.js';
import type { Output } from './io.js';
import { hangingLine } from './table.js';
import { terminalText } from './terminal-text.js';
import { stringWidth } from './text-width.js';
import { isJsonObject } from '../core/json-object.js';

const BANDS = Object.keys(RISK_BAND_LOWEST_SCORES) as Array<keyof typeof RISK_BAND_LOWEST_SCORES>;
const SCALE_TOP = 100;
/** SGR colours of the bands svc knows: low green, medium yellow, high and very high red. */
const BAND_COLOUR: Record<string, number> = { low: 32, medium: 33, high: 31, very_high: 31 };
/** The widest a bar is drawn, however wide the terminal. */
const MAX_BAR = 50;
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

export function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A criterion's score times its weight, when both are numbers. */
export function contribution(criterion: Answered<Criterion>): number | undefined {
  const score = numberOr(criterion.score);
  const weight = numberOr(criterion.weight);
  return score === undefined || weight === undefined ? undefined : score * weight;
}

export function percent(weight: number): string {
  return `${(weight * 100).toFixed((weight * 100) % 1 === 0 ? 0 : 1)}%`;
}

/**
 * The criteria of an answer that are objects. The specification shows criteria as a list of objects;
 * an answer that sends something else shows no criteria rather than failing to show the rest.
 */
export function criteriaOf(report: ReportAnswer): Array<Answered<Criterion>> {
  return Array.isArray(report.criteria) ? report.criteria.filter(isJsonObject) : [];
}

/** The recommendations of an answer as text, however the answer sends them. */
export function recommendationsOf(report: ReportAnswer): string[] {
  return Array.isArray(report.recommendations) ? report.recommendations.filter((line) => line !== null && line !== undefined).map(String) : [];
}

/** The criteria, the largest contribution first; those without one last. */
export function byContribution(criteria: Array<Answered<Criterion>>): Array<Answered<Criterion>> {
  return [...criteria].sort((a, b) => (contribution(b) ?? Number.NEGATIVE_INFINITY) - (contribution(a) ?? Number.NEGATIVE_INFINITY));
}

/** A band's name for people: `very_high` → `very high`. */
export function bandName(band: string): string {
  return band.replaceAll('_', ' ');
}

/** The band svc's scale gives a score, or undefined for a score off the 0–100 scale. */
function bandOf(score: number): string | undefined {
  if (score < 0 || score > SCALE_TOP) return undefined;
  return BANDS.filter((band) => score >= RISK_BAND_LOWEST_SCORES[band]).at(-1);
}

/**
 * The score and band of a report, when they can be drawn on svc's 0–100 scale: the score lies on it
 * and the band the service gave is the one the scale's marks put it in. Another service's scale
 * (its range is not shown by the specification) is then never drawn as if it were svc's.
 */
export function scaledScore(report: ReportAnswer): { score: number; band: string } | undefined {
  const score = numberOr(report.risk_score);
  if (score === undefined || typeof report.score_band !== 'string') return undefined;
  return bandOf(score) === report.score_band ? { score, band: report.score_band } : undefined;
}

/** A run of blocks `length` cells long, in eighths of a cell. */
function blocks(length: number): string {
  const eighths = Math.round(length * 8);
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
}

/** Places each label at its column of a line `width` cells wide, never over the one before it, painted with `paint`. */
function marks(width: number, labels: Array<[column: number, text: string]>, paint: (text: string) => string = (text) => text): string {
  let line = '';
  let used = 0;
  for (const [column, text] of labels) {
    const at = Math.min(Math.max(column, used === 0 ? 0 : used + 1), width - stringWidth(text));
    line += ' '.repeat(Math.max(0, at - used)) + paint(text);
    used = Math.max(used, at) + stringWidth(text);
  }
  return line;
}

export interface RiskPicture {
  paint: (code: number, text: string) => string;
  width: number;
}

export function riskPicture(out: Output): RiskPicture {
  const color = out.color;
  return { paint: (code, text) => (color ? `\u001b[${code}m${text}\u001b[39m` : text), width: out.columns };
}

/** The band in its colour, where the terminal shows colour; a band svc does not know is left plain. */
export function paintedBand(band: string, picture: RiskPicture): string {
  const colour = BAND_COLOUR[band];
  const name = terminalText(bandName(band));
  return colour ? picture.paint(colour, name) : name;
}

/**
 * The risk score on svc's 0–100 scale: the band names over it where each band starts, the bar
 * filled up to the score in the band's colour, the thresholds under it.
 */
export function scoreScale(score: number, band: string, picture: RiskPicture): string {
  const width = Math.min(MAX_BAR, picture.width - 2);
  const column = (value: number) => Math.round((value / SCALE_TOP) * width);
  const filled = blocks((score / SCALE_TOP) * width);
  const bar = picture.paint(BAND_COLOUR[band] ?? 39, filled) + '░'.repeat(Math.max(0, width - stringWidth(filled)));
  const names = marks(
    width,
    BANDS.map((name) => [column(RISK_BAND_LOWEST_SCORES[name]), bandName(name)]),
    (name) => picture.paint(BAND_COLOUR[name.replaceAll(' ', '_')] ?? 39, name),
  );
  const thresholds = marks(width, [
    ...BANDS.map((name): [number, string] => [column(RISK_BAND_LOWEST_SCORES[name]), String(RISK_BAND_LOWEST_SCORES[name])]),
    [width - 3, String(SCALE_TOP)],
  ]);
  return [`  ${names}`, `  ${bar}`, `  ${thresholds}`].join('\n');
}

/**
 * Each criterion's weighted contribution as a bar, the largest first, scaled to the largest (so any
 * range of scores draws), with its score and weight beside it and its detail under it.
 */
export function criteriaBars(criteria: Array<Answered<Criterion>>, picture: RiskPicture, out: Output): string {
  const sorted = byContribution(criteria);
  const labels = sorted.map((criterion) => terminalText(String(criterion.label ?? criterion.key ?? '?')));
  const labelWidth = Math.min(24, Math.max(...labels.map((label) => stringWidth(label))));
  const values = sorted.map((criterion) => contribution(criterion)?.toFixed(1) ?? '?');
  const valueWidth = Math.max(...values.map((value) => value.length));
  const figures = sorted.map((criterion, index) => {
    const weight = numberOr(criterion.weight);
    return `${values[index]!.padStart(valueWidth)}  score ${numberOr(criterion.score) ?? '?'} × ${weight === undefined ? '?' : percent(weight)}`;
  });
  const figureWidth = Math.max(...figures.map((figure) => stringWidth(figure)));
  const barWidth = Math.max(8, Math.min(MAX_BAR, picture.width - labelWidth - figureWidth - 4));
  const largest = Math.max(0, ...sorted.map((criterion) => contribution(criterion) ?? 0));
  const rows = sorted.map((criterion, index) => {
    const value = Math.max(0, contribution(criterion) ?? 0);
    const bar = blocks(largest > 0 ? (value / largest) * barWidth : 0);
    const label = labels[index]!;
    const head = stringWidth(label) > labelWidth ? `${label}\n${' '.repeat(labelWidth)}` : label.padEnd(labelWidth);
    const line = `${head}  ${picture.paint(36, bar)}${' '.repeat(barWidth - stringWidth(bar))}  ${figures[index]}`;
    const detail =
      typeof criterion.detail === 'string' && criterion.detail !== ''
        ? hangingLine(' '.repeat(labelWidth + 2), picture.paint(90, terminalText(criterion.detail)), out)
        : undefined;
    return detail ? `${line}\n${detail}` : line;
  });
  return rows.join('\n');
}
