import type { ApplicantInput, DocumentType, RiskBand, VisaType } from './types.js';
import schemas from './schemas.json' with { type: 'json' };

// The allowed values of openapi.yaml's enums, for flag options and prompts. schemas.json and the
// types are generated from the same document, so the casts only restore what JSON typing loses.
export const VISA_TYPES = schemas.VisaType.enum as VisaType[];
export const DOCUMENT_TYPES = schemas.DocumentType.enum as DocumentType[];
/** The lowest risk score of each band, lowest band first: the sandbox's scale (the specification shows neither bands nor range). */
export const RISK_BAND_LOWEST_SCORES = schemas.RiskBand['x-lowest-score'] as Record<RiskBand, number>;
export const EMPLOYMENT_STATUSES = schemas.ApplicantInput.properties.employment_status.enum as Array<NonNullable<ApplicantInput['employment_status']>>;
