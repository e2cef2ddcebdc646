import type { StoredEvent } from '../webhooks/event-rows.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A stored event as --json shows it: snake_case like the API, the body as text (base64 when it is
 * not UTF-8). Of a body stored only in part (a rejected delivery's first bytes) the part is
 * `body_prefix`, so that nothing takes it for the body and verifies or sends it as such.
 */
export interface StoredEventJson {
  seq: number;
  event_id: string | null;
  type: string | null;
  resource_id: string | null;
  status: StoredEvent['status'];
  reason: StoredEvent['reason'];
  detail: string | null;
  schema_notes: string[];
  received_at: string;
  duplicates: number;
  forward: { url: string; status: number | null; error: string | null; at: string | null } | null;
  headers: StoredEvent['headers'];
  body_size: number;
  body_truncated: boolean;
  /** The body as text; `body_base64` when it is not UTF-8, `body_prefix` (or `body_prefix_base64`) when only its first bytes were kept. */
  body?: string;
  body_base64?: string;
  body_prefix?: string;
  body_prefix_base64?: string;
}

export function storedEventJson(event: StoredEvent): StoredEventJson {
  const name = event.bodyTruncated ? 'body_prefix' : 'body';
  let body: Partial<Record<'body' | 'body_base64' | 'body_prefix' | 'body_prefix_base64', string>>;
  try {
    body = { [name]: utf8.decode(event.body) };
  } catch {
    body = { [`${name}_base64`]: event.body.toString('base64') };
  }
  return {
    seq: event.seq,
    event_id: event.eventId,
    type: event.type,
    resource_id: event.resourceId,
    status: event.status,
    reason: event.reason,
    detail: event.detail,
    schema_notes: event.schemaNotes,
    received_at: event.receivedAt,
    duplicates: event.duplicates,
    forward: event.forwardUrl === null ? null : { url: event.forwardUrl, status: event.forwardStatus, error: event.forwardError, at: event.forwardedAt },
    headers: event.headers,
    body_size: event.bodySize,
    body_truncated: event.bodyTruncated,
    ...body,
  };
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The status column of a stored event: accepted (with its repeats and schema notes), or rejected and why. */
export function statusCell(event: StoredEvent): string {
  if (event.status === 'rejected')
    return `rejected: ${event.reason}${event.bodyTruncated ? `, first ${event.body.length} of ${event.bodySize} bytes kept` : ''}`;
  const extras = [
    event.duplicates > 0 && count(event.duplicates, 'repeat', 'repeats'),
    event.schemaNotes.length > 0 && count(event.schemaNotes.length, 'schema note', 'schema notes'),
  ];
  return ['accepted', ...extras.filter(Boolean)].join(', ');
}

/** The forward column of a stored event: the application's answer, or why there is none. */
export function forwardCell(event: StoredEvent): string {
  if (event.forwardUrl === null) return '';
  if (event.forwardedAt === null) return 'unfinished';
  return String(event.forwardStatus ?? event.forwardError);
}
