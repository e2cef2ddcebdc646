import type { ApplicantInput, DocumentType, RiskBand, VisaType } from '../api/types.js';
import schemas from '../api/schemas.json' with { type: 'json' };

// The allowed values of openapi.yaml's enums, for flag options and prompts. schemas.json and the
// types are generated from the same document, so the casts only restore what JSON typing loses.
export const VISA_TYPES = schemas.VisaType.enum as VisaType[];
export const DOCUMENT_TYPES = schemas.DocumentType.enum as DocumentType[];
/** The lowest risk score of each band, lowest band first: the sandbox's scale (the specification shows neither bands nor range). */
export const RISK_BAND_LOWEST_SCORES = schemas.RiskBand['x-lowest-score'] as Record<RiskBand, number>;
/** The band of a score on the sandbox's scale: the highest band whose lowest score it reaches. */
export function scoreBand(riskScore: number): RiskBand {
  if (riskScore >= RISK_BAND_LOWEST_SCORES.very_high) return 'very_high';
  if (riskScore >= RISK_BAND_LOWEST_SCORES.high) return 'high';
  return riskScore >= RISK_BAND_LOWEST_SCORES.medium ? 'medium' : 'low';
}
/** The sandbox counts trips abroad of this calendar year and the nine before (openapi.yaml assumes travel_history). */
export const RECENT_TRAVEL_YEARS = 10;
export const EMPLOYMENT_STATUSES = schemas.ApplicantInput.properties.employment_status.enum as Array<NonNullable<ApplicantInput['employment_status']>>;
