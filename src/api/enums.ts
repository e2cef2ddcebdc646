import type { ApplicantInput, DocumentType, VisaType } from './types.js';
import schemas from './schemas.json' with { type: 'json' };

// The allowed values of openapi.yaml's enums, for flag options and prompts. schemas.json and the
// types are generated from the same document, so the casts only restore what JSON typing loses.
export const VISA_TYPES = schemas.VisaType.enum as VisaType[];
export const DOCUMENT_TYPES = schemas.DocumentType.enum as DocumentType[];
export const EMPLOYMENT_STATUSES = schemas.ApplicantInput.properties.employment_status.enum as Array<NonNullable<ApplicantInput['employment_status']>>;
