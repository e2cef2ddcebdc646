/**
 * The sandbox's report analysis: an explainable rule set, deterministic (the same input always gives
 * the same report; the day is an input, never read from a clock).
 *
 * Seven criteria each score 0-100, higher is riskier, with a one-line detail of the facts used:
 *
 *   document_validity     0.25  passport uploaded, MRZ read, check digits, expiry (6 months), matches profile
 *   financial_means       0.20  savings + 3 months' income in EUR vs funds expected for the visa type × cost of living
 *   document_red_flags    0.15  red flags of the uploaded documents, severe (identity, forgery) or moderate
 *   travel_history        0.15  trips of the last 10 years, extra credit for strict destinations; overstays dominate
 *   purpose_consistency   0.10  keywords of the purpose vs the visa type; its usual supporting document
 *   immigration_history   0.10  previous visa refusals
 *   destination_policy    0.05  free movement, short-stay waivers, strict or moderate destination
 *
 * risk_score = round(Σ score × weight); bands: below 25 low, below 50 medium, below 75 high, else very_high.
 * Recommendations: the advice of each criterion scoring 40 or more, largest weighted risk first, at most 4;
 * when there is none, one line saying the profile is strong.
 *
 * A report fails instead when its input cannot be judged: `invalid_input` (destination not two uppercase
 * letters, or the applicant's own country), `unknown_destination` (not an ISO 3166-1 country),
 * `document_unreadable` (a document was rejected) and `documents_pending` (a document is still processing).
 */
import { scoreBand } from '../spec/enums.js';
import type { Criterion, RiskBand } from '../api/types.js';
import { isCountryCode } from './countries.js';
import { assessDestinationPolicy } from './criteria/destination-policy.js';
import { assessDocumentRedFlags } from './criteria/document-red-flags.js';
import { assessDocumentValidity } from './criteria/document-validity.js';
import { assessFinancialMeans } from './criteria/financial-means.js';
import { assessImmigrationHistory } from './criteria/immigration-history.js';
import { assessPurposeConsistency } from './criteria/purpose-consistency.js';
import { assessTravelHistory } from './criteria/travel-history.js';
import type { Assess, ReportAnalysisInput, ReportDocument } from './criteria/types.js';
import { documentLabel, listed } from './wording.js';

export type { ReportAnalysisInput, ReportDocument } from './criteria/types.js';

export type ReportAnalysis =
  | { outcome: 'completed'; risk_score: number; score_band: RiskBand; criteria: Criterion[]; recommendations: string[] }
  | { outcome: 'failed'; error: { code: string; message: string } };

export interface CriterionRule {
  key: string;
  label: string;
  weight: number;
  assess: Assess;
}

/** In the order a report lists them, heaviest first. The weights sum to 1. */
export const CRITERIA: readonly CriterionRule[] = [
  { key: 'document_validity', label: 'Document validity', weight: 0.25, assess: assessDocumentValidity },
  { key: 'financial_means', label: 'Financial means', weight: 0.2, assess: assessFinancialMeans },
  { key: 'document_red_flags', label: 'Document red flags', weight: 0.15, assess: assessDocumentRedFlags },
  { key: 'travel_history', label: 'Travel history', weight: 0.15, assess: assessTravelHistory },
  { key: 'purpose_consistency', label: 'Purpose consistency', weight: 0.1, assess: assessPurposeConsistency },
  { key: 'immigration_history', label: 'Immigration history', weight: 0.1, assess: assessImmigrationHistory },
  { key: 'destination_policy', label: 'Destination policy', weight: 0.05, assess: assessDestinationPolicy },
];

export const CRITERION_WEIGHTS: Readonly<Record<string, number>> = Object.fromEntries(CRITERIA.map(({ key, weight }) => [key, weight]));

/** A criterion scoring this or more gets a recommendation. */
const RECOMMENDATION_THRESHOLD = 40;
export const MAX_RECOMMENDATIONS = 4;

export const STRONG_PROFILE_RECOMMENDATION =
  'The profile is strong: no criterion shows a notable risk; keep the passport valid, the funds evidenced and the purpose as stated.';

export function analyseReport(input: ReportAnalysisInput): ReportAnalysis {
  const failure = failureOf(input);
  if (failure) return { outcome: 'failed', error: failure };

  const assessed = CRITERIA.map((rule) => ({ rule, ...rule.assess(input) }));
  const riskScore = Math.round(assessed.reduce((sum, { rule, score }) => sum + weightedRisk(score, rule.weight), 0) / 100);
  return {
    outcome: 'completed',
    risk_score: riskScore,
    score_band: scoreBand(riskScore),
    criteria: assessed.map(({ rule, score, detail }) => ({ key: rule.key, label: rule.label, score, weight: rule.weight, detail })),
    recommendations: recommendationsOf(assessed),
  };
}

function failureOf({ applicant, documents, destination }: ReportAnalysisInput): { code: string; message: string } | undefined {
  if (!/^[A-Z]{2}$/.test(destination)) {
    return { code: 'invalid_input', message: `the destination ${JSON.stringify(destination)} is not a country code of two uppercase letters` };
  }
  if (!isCountryCode(destination)) return { code: 'unknown_destination', message: `${destination} is not an ISO 3166-1 country code` };
  if (destination === applicant.nationality) {
    return { code: 'invalid_input', message: `an applicant needs no visa for their own country (${destination})` };
  }
  const rejected = documentKindsIn(documents, 'rejected');
  if (rejected.length > 0) {
    return {
      code: 'document_unreadable',
      message: `the ${listed(rejected)} could not be read (rejected at upload); upload a readable copy and create the report again`,
    };
  }
  const pending = documentKindsIn(documents, 'processing');
  if (pending.length > 0) return { code: 'documents_pending', message: `the ${listed(pending)} ${pending.length === 1 ? 'is' : 'are'} still being processed` };
  return undefined;
}

function documentKindsIn(documents: ReportDocument[], status: ReportDocument['status']): string[] {
  return [...new Set(documents.filter((document) => document.status === status).map((document) => documentLabel(document.type)))];
}

/** A score times its weight in hundredths: an integer, so that sums and comparisons are exact. */
function weightedRisk(score: number, weight: number): number {
  return score * Math.round(weight * 100);
}

function recommendationsOf(assessed: Array<{ rule: CriterionRule; score: number; advice: string }>): string[] {
  // A stable sort: equal weighted risks keep the order of CRITERIA, heavier weights first.
  const weak = assessed
    .filter(({ score }) => score >= RECOMMENDATION_THRESHOLD)
    .sort((a, b) => weightedRisk(b.score, b.rule.weight) - weightedRisk(a.score, a.rule.weight));
  if (weak.length === 0) return [STRONG_PROFILE_RECOMMENDATION];
  return weak.slice(0, MAX_RECOMMENDATIONS).map(({ advice }) => advice);
}
