import type { EventType } from '../api/types.js';
import { findProblems, type SchemaName } from '../api/validate.js';

/** The schema of openapi.yaml that each event kind's body must satisfy. */
export const EVENT_SCHEMAS: Record<EventType, SchemaName> = {
  'report.created': 'ReportCreatedEvent',
  'report.completed': 'ReportCompletedEvent',
  'report.failed': 'ReportFailedEvent',
  'document.parsed': 'DocumentParsedEvent',
  'document.processed': 'DocumentProcessedEvent',
  'document.rejected': 'DocumentRejectedEvent',
};

export const EVENT_TYPES = Object.keys(EVENT_SCHEMAS) as EventType[];

/** What a receiver shows of an event: its id, kind, the resource it is about and when it happened. */
export interface EventSummary {
  id: string;
  type: EventType;
  /** The report or document the event is about: `data.id`, or `data.report_id` in report.completed's short variant. */
  resourceId: string | undefined;
  createdAt: string;
}

export type EnvelopeCheck =
  | { ok: true; event: EventSummary }
  | { ok: false; reason: 'body_not_json' | 'envelope_invalid'; detail: string; claimed: Partial<EventSummary> };

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && Object.hasOwn(EVENT_SCHEMAS, value);
}

/** The fields an unverified or invalid body claims, for showing what arrived; never trusted. */
function claimedBy(value: unknown): Partial<EventSummary> {
  if (typeof value !== 'object' || value === null) return {};
  const body = value as Record<string, unknown>;
  const data = typeof body.data === 'object' && body.data !== null ? (body.data as Record<string, unknown>) : {};
  const text = (item: unknown) => (typeof item === 'string' ? item : undefined);
  return {
    id: text(body.id),
    type: text(body.type) as EventType | undefined,
    resourceId: text(data.id) ?? text(data.report_id),
    createdAt: text(body.created_at),
  };
}

/** Parses a body as UTF-8 JSON, or says why it is not. */
export function parseBody(body: Uint8Array): { value: unknown } | { detail: string } {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { detail: 'the body is not valid UTF-8' };
  }
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { detail: `the body is not JSON: ${(error as Error).message}` };
  }
}

/** Best-effort id, type and resource a body claims, for showing a delivery that failed verification. */
export function claimedEvent(body: Uint8Array): Partial<EventSummary> {
  const parsed = parseBody(body);
  return 'value' in parsed ? claimedBy(parsed.value) : {};
}

/**
 * Checks a body against openapi.yaml's webhook schemas: UTF-8 JSON, the schema of its `type`, and
 * a `Service-Event` header (when sent) naming the same kind.
 */
export function checkEnvelope(body: Uint8Array, serviceEvent?: string): EnvelopeCheck {
  const parsed = parseBody(body);
  if ('detail' in parsed) return { ok: false, reason: 'body_not_json', detail: parsed.detail, claimed: {} };
  const claimed = claimedBy(parsed.value);
  const type = (parsed.value as { type?: unknown } | null)?.type;
  const problems = findProblems(isEventType(type) ? EVENT_SCHEMAS[type] : 'EventEnvelope', parsed.value);
  if (problems.length > 0) {
    const listed = problems.slice(0, 5).map((problem) => `${problem.field || 'body'}: ${problem.message}`);
    if (problems.length > 5) listed.push(`${problems.length - 5} more`);
    return { ok: false, reason: 'envelope_invalid', detail: listed.join('; '), claimed };
  }
  if (serviceEvent !== undefined && serviceEvent !== type) {
    return { ok: false, reason: 'envelope_invalid', detail: `the Service-Event header says ${serviceEvent.slice(0, 100)} but the body's type is ${type}`, claimed };
  }
  return { ok: true, event: claimed as EventSummary };
}
