import type { Assessment, ReportAnalysisInput } from './types.js';

/** Score by number of earlier refusals: 0, 1, 2, 3 or more. */
const REFUSAL_SCORES = [0, 50, 75, 95] as const;

export function assessImmigrationHistory({ applicant }: ReportAnalysisInput): Assessment {
  const refusals = applicant.previous_refusals;
  const score = REFUSAL_SCORES[Math.min(refusals, REFUSAL_SCORES.length - 1)] ?? 0;
  if (refusals === 0) return { score, detail: 'no previous visa refusals', advice: 'Answer the refusal questions of the application truthfully.' };
  return {
    score,
    detail: `${refusals} previous visa refusal${refusals === 1 ? '' : 's'}`,
    advice: `Address the ${refusals === 1 ? 'previous refusal' : `${refusals} previous refusals`} in the application: explain what has changed since, with evidence.`,
  };
}
