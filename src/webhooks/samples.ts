import { scoreBand } from '../spec/enums.js';
import { queuedReport } from '../api/resources.js';
import type { DocumentType, EventType } from '../api/types.js';
import { type IdPrefix, newId, randomToken } from '../core/ids.js';
import { isListedEventType } from './envelope.js';

export interface EventBody {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

const ID_PREFIXES: Record<string, IdPrefix> = { report: 'rep', applicant: 'app', document: 'doc', key: 'key' };

/** The `data` of each kind, shaped as openapi.yaml's webhook schemas say and as the sandbox sends them. */
function sampleData(type: EventType, at: string): Record<string, unknown> {
  const reportId = newId('rep');
  const documentId = newId('doc');
  switch (type) {
    case 'report.created': {
      return queuedReport(
        reportId,
        { applicant_id: newId('app'), destination: 'DE', visa_type: 'tourist', purpose: 'Two weeks visiting family in Berlin' },
        at,
      );
    }
    case 'report.completed': {
      const riskScore = 27;
      return { id: reportId, risk_score: riskScore, risk_band: scoreBand(riskScore), completed_at: at };
    }
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

/**
 * A realistic event of the given kind with fresh ids, valid against openapi.yaml. For a kind it does
 * not list, the least part 6 describes: `data` holding the id of the resource the kind names
 * (`applicant.updated`: an `app_` id).
 */
export function sampleEvent(type: string, now = Date.now()): EventBody {
  const at = new Date(now).toISOString();
  if (isListedEventType(type)) return { id: newId('evt'), type, created_at: at, data: sampleData(type, at) };
  const resource = type.split('.')[0]!;
  const prefix = ID_PREFIXES[resource];
  return { id: newId('evt'), type, created_at: at, data: { id: prefix ? newId(prefix) : `${resource}_${randomToken(24)}` } };
}

/** `report.completed` in part 6's shorter variant: `report_id` in place of `id`, and only `risk_score`. */
export function shortCompletedEvent(now = Date.now()): EventBody {
  return { id: newId('evt'), type: 'report.completed', created_at: new Date(now).toISOString(), data: { report_id: newId('rep'), risk_score: 40 } };
}
