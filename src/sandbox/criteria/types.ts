import type { Applicant, DocumentStatus, DocumentType, PassportExtract, RedFlag, VisaType } from '../../api/types.js';

export interface ReportDocument {
  type: DocumentType;
  status: DocumentStatus;
  red_flags: RedFlag[];
  extracted: PassportExtract | null;
}

export interface ReportAnalysisInput {
  applicant: Applicant;
  /** The applicant's documents. */
  documents: ReportDocument[];
  destination: string;
  visa_type: VisaType;
  purpose: string;
  /** YYYY-MM-DD: the day the analysis judges expiry and recent travel against. */
  today: string;
}

/** What a criterion found: its score (0-100, higher is riskier), the facts behind it, and what would lower it. */
export interface Assessment {
  score: number;
  detail: string;
  advice: string;
}

/** A criterion sees only analysed documents: rejected or pending ones fail the report before. */
export type Assess = (input: ReportAnalysisInput) => Assessment;
