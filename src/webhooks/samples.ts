import type { DocumentType, EventType, Report } from '../api/types.js';
import { newId } from '../sandbox/ids.js';

export interface EventBody {
  id: string;
  type: EventType;
  created_at: string;
  data: Record<string, unknown>;
}

/** The `data` of each kind, shaped as openapi.yaml's webhook schemas say and as the sandbox sends them. */
function sampleData(type: EventType, at: string): Record<string, unknown> {
  const reportId = newId('rep');
  const documentId = newId('doc');
  switch (type) {
    case 'report.created': {
      const report: Report = {
        id: reportId,
        object: 'report',
        applicant_id: newId('app'),
        destination: 'DE',
        visa_type: 'tourist',
        purpose: 'Two weeks visiting family in Berlin',
        status: 'queued',
        risk_score: null,
        score_band: null,
        criteria: null,
        recommendations: null,
        error: null,
        created_at: at,
        completed_at: null,
      };
      return report;
    }
    case 'report.completed':
      return { id: reportId, risk_score: 27, risk_band: 'low', completed_at: at };
    case 'report.failed':
      return { id: reportId, error: { code: 'document_unreadable', message: 'The passport scan could not be read: the machine-readable zone is blurred.' } };
    case 'document.parsed':
    case 'document.processed':
      return {
        id: documentId,
        type: 'passport' satisfies DocumentType,
        status: 'analysed',
        red_flags: [{ code: 'passport_expires_soon', message: 'The passport expires less than six months after the planned arrival.' }],
      };
    case 'document.rejected':
      return {
        id: documentId,
        type: 'bank_statement' satisfies DocumentType,
        status: 'rejected',
        reason: { code: 'unsupported_format', message: 'The file is not a PDF, JPEG, PNG or UTF-8 text document.' },
      };
  }
}

/** A realistic event of the given kind with fresh ids, valid against openapi.yaml. */
export function sampleEvent(type: EventType, now = Date.now()): EventBody {
  const at = new Date(now).toISOString();
  return { id: newId('evt'), type, created_at: at, data: sampleData(type, at) };
}
