import type { IncomingHttpHeaders } from 'node:http';
import type { RejectionReason } from './verify.js';

// The events table as both stores keep it, the SQLite file (sqlite-store.ts) and the PostgreSQL a fleet
// shares (postgres-store.ts): its rows as svc reads them, what a rejected delivery keeps, and what
// both query and prune by.

export type StoredStatus = 'accepted' | 'rejected';

/** What a rejected delivery keeps of its body: enough to see what it was, not enough to fill a disk. */
export const REJECTED_BODY_BYTES = 4096;

/**
 * Bounds on the rejected deliveries kept, which anyone who can reach the listener can make: the
 * newest within `maxCount` rows and `maxBytes` (body, headers and detail), none older than `ttlMs`.
 */
export interface RejectedLimits {
  maxCount: number;
  maxBytes: number;
  ttlMs: number;
}

export const DEFAULT_REJECTED_LIMITS: RejectedLimits = { maxCount: 1000, maxBytes: 8 * 1024 * 1024, ttlMs: 7 * 86_400_000 };

/** One delivery as kept: an accepted event (once per event id), or a refused delivery with its reason. */
export interface StoredEvent {
  seq: number;
  eventId: string | null;
  type: string | null;
  resourceId: string | null;
  status: StoredStatus;
  reason: RejectionReason | null;
  detail: string | null;
  /** How the body differed from openapi.yaml's event schemas when it was verified. */
  schemaNotes: string[];
  receivedAt: string;
  /** Further deliveries of the same event id after it was accepted (the sender's retries). */
  duplicates: number;
  headers: IncomingHttpHeaders;
  /** The body as stored: for a rejected delivery, at most its first REJECTED_BODY_BYTES. */
  body: Buffer;
  /** Bytes of the body as received. */
  bodySize: number;
  /** Only the first bytes of the body are stored (a rejected delivery); it cannot be verified or sent again. */
  bodyTruncated: boolean;
  forwardUrl: string | null;
  forwardStatus: number | null;
  forwardError: string | null;
  forwardedAt: string | null;
}

export interface ForwardOutcome {
  url: string;
  status: number | null;
  error: string | null;
}

export interface EventFilter {
  types?: readonly string[];
  status?: StoredStatus;
  /** Accepted events whose forwarding got no 2xx answer: failed, or cut off by a stop. */
  notForwarded?: boolean;
  since?: number;
  until?: number;
  /** Only rows stored after this one (seq), to page through the store. */
  afterSeq?: number;
  /** Oldest first (in the order stored) instead of newest first. */
  oldestFirst?: boolean;
  limit: number;
}

/**
 * The first `limit` bytes, cut back to the start of a UTF-8 sequence so that a text body stays
 * valid text.
 */
export function firstBytes(body: Uint8Array, limit: number): Uint8Array {
  if (body.byteLength <= limit) return body;
  let end = limit;
  for (let back = 0; back < 3 && (body[end]! & 0xc0) === 0x80; back++) end--;
  return body.subarray(0, (body[end]! & 0xc0) === 0x80 ? limit : end);
}

export const notesColumn = (notes: readonly string[]) => (notes.length > 0 ? JSON.stringify(notes) : null);

/** Accepted events due for forwarding that got no 2xx answer: failed, or cut off by a stop. */
export const NOT_FORWARDED = "status = 'accepted' AND forward_url IS NOT NULL AND (forward_status IS NULL OR forward_status NOT BETWEEN 200 AND 299)";

/** Rows deleted per transaction when pruning, so that a running listener is never kept waiting for long. */
export const PRUNE_CHUNK = 1000;

export interface PruneResult {
  /** Deleted (or, on a dry run, to delete). */
  deleted: number;
  /** Accepted events old enough, kept because their application never took them. */
  keptNotForwarded: number;
}

/** A row of the events table, as either store's driver gives it. */
type EventRow = Record<string, unknown>;

/** A row as svc reads it. Rows a SQLite store kept before body_size was a column hold their body whole. */
export function toStoredEvent(row: EventRow): StoredEvent {
  const time = (value: unknown) => (value === null || value === undefined ? null : new Date(Number(value)).toISOString());
  // PostgreSQL's driver gives a Buffer, node:sqlite a Uint8Array.
  const body = Buffer.isBuffer(row.body) ? row.body : Buffer.from(row.body as Uint8Array);
  const bodySize = row.body_size === null ? body.length : Number(row.body_size);
  return {
    seq: Number(row.seq),
    eventId: row.event_id as string | null,
    type: row.type as string | null,
    resourceId: row.resource_id as string | null,
    status: row.status as StoredStatus,
    reason: row.reason as RejectionReason | null,
    detail: row.detail as string | null,
    schemaNotes: row.schema_notes === null ? [] : (JSON.parse(row.schema_notes as string) as string[]),
    receivedAt: time(row.received_at)!,
    duplicates: Number(row.duplicates),
    headers: JSON.parse(row.headers as string) as IncomingHttpHeaders,
    body,
    bodySize,
    bodyTruncated: bodySize > body.length,
    forwardUrl: row.forward_url as string | null,
    forwardStatus: row.forward_status === null ? null : Number(row.forward_status),
    forwardError: row.forward_error as string | null,
    forwardedAt: time(row.forwarded_at),
  };
}
