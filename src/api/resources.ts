import type { Report, ReportCreate } from './types.js';

/** A report as openapi.yaml shows it when just created: queued, its analysis fields still null. */
export function queuedReport(id: string, request: ReportCreate, createdAt: string): Report {
  return {
    id,
    object: 'report',
    applicant_id: request.applicant_id,
    destination: request.destination,
    visa_type: request.visa_type,
    purpose: request.purpose,
    status: 'queued',
    risk_score: null,
    score_band: null,
    criteria: null,
    recommendations: null,
    error: null,
    created_at: createdAt,
    completed_at: null,
  };
}
