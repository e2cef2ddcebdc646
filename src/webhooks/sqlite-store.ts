import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { inTransaction, openPrivateDatabase, StatementCache } from '../core/sqlite.js';
import { SvcError } from '../core/errors.js';
import type { EventSummary } from './envelope.js';
import {
  type EventFilter,
  firstBytes,
  type ForwardOutcome,
  NOT_FORWARDED,
  notesColumn,
  PRUNE_CHUNK,
  type PruneResult,
  REJECTED_BODY_BYTES,
  type RejectedLimits,
  type StoredEvent,
  toStoredEvent,
} from './event-rows.js';
import type { RejectionReason } from './verify.js';

/** The event store's SQLite file when none is configured, under svc's data directory. */
export function defaultStorePath(dataDir: string): string {
  return join(dataDir, 'webhooks', 'events.db');
}

// One row per accepted event id (the partial unique index), any number of rejected rows, within
// the RejectedLimits: a forged delivery carrying a real event's id must not stand in the way of the
// real one. body_size is NULL in rows stored before it was kept, which hold their body whole.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY,
  event_id TEXT,
  type TEXT,
  resource_id TEXT,
  status TEXT NOT NULL CHECK (status IN ('accepted', 'rejected')),
  reason TEXT,
  detail TEXT,
  schema_notes TEXT,
  received_at INTEGER NOT NULL,
  duplicates INTEGER NOT NULL DEFAULT 0,
  headers TEXT NOT NULL,
  body BLOB NOT NULL,
  body_size INTEGER,
  forward_url TEXT,
  forward_status INTEGER,
  forward_error TEXT,
  forwarded_at INTEGER
);
CREATE UNIQUE INDEX IF NOT EXISTS accepted_event_id ON events (event_id) WHERE status = 'accepted';
CREATE INDEX IF NOT EXISTS events_by_time ON events (received_at);
CREATE INDEX IF NOT EXISTS rejected_by_time ON events (received_at) WHERE status = 'rejected';
`;

/** The size a rejected row (of `events`, or a trigger's NEW or OLD) counts for against RejectedLimits.maxBytes. */
const rejectedBytes = (row: 'events' | 'NEW' | 'OLD') => `(length(${row}.body) + octet_length(${row}.headers) + coalesce(octet_length(${row}.detail), 0))`;

// The count and bytes of the rejected rows, kept by triggers, so that holding them within their
// limits costs one read per delivery rather than a scan, whichever process deletes rows.
const REJECTED_TOTALS = `
CREATE TABLE rejected_totals (one INTEGER PRIMARY KEY CHECK (one = 1), count INTEGER NOT NULL, bytes INTEGER NOT NULL);
INSERT INTO rejected_totals
  SELECT 1, COUNT(*), COALESCE(SUM(${rejectedBytes('events')}), 0) FROM events WHERE status = 'rejected';
CREATE TRIGGER rejected_added AFTER INSERT ON events WHEN NEW.status = 'rejected' BEGIN
  UPDATE rejected_totals SET count = count + 1, bytes = bytes + ${rejectedBytes('NEW')};
END;
CREATE TRIGGER rejected_removed AFTER DELETE ON events WHEN OLD.status = 'rejected' BEGIN
  UPDATE rejected_totals SET count = count - 1, bytes = bytes - ${rejectedBytes('OLD')};
END;
`;

type Row = Record<string, SQLInputValue>;

/** A store made before a column was kept gets it (NULL in its rows). */
function addColumn(db: DatabaseSync, name: string, type: string): void {
  const present = () => db.prepare("SELECT 1 FROM pragma_table_info('events') WHERE name = ?").get(name) !== undefined;
  if (present()) return;
  // Checked again under the write lock: another process may be opening the same store.
  inTransaction(db, () => {
    if (!present()) db.exec(`ALTER TABLE events ADD COLUMN ${name} ${type}`);
  });
}

/** Creates the rejected rows' totals and their triggers in a store that has none yet. */
function addRejectedTotals(db: DatabaseSync): void {
  const present = () => db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'trigger' AND name = 'rejected_removed'").get() !== undefined;
  if (present()) return;
  // Totals and triggers together, under the write lock: no row is counted twice or missed.
  inTransaction(db, () => {
    if (!present()) db.exec(REJECTED_TOTALS);
  });
}

/**
 * The receiver's durable record in one SQLite file (WAL, synchronous=FULL: a commit is on disk when
 * it returns, so an acknowledged event survives kill -9 and power loss alike). Calls are
 * synchronous; the receiver batches its writes into shared transactions (Intake).
 */
export class EventStore {
  private readonly db: DatabaseSync;
  private readonly statements: StatementCache;

  constructor(readonly file: string) {
    // Event bodies are the workspace's data. A larger WAL between checkpoints: fewer of the
    // checkpoint's extra syncs under a burst.
    this.db = openPrivateDatabase(file, 'PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000; PRAGMA wal_autocheckpoint = 10000;');
    this.db.exec(SCHEMA);
    addColumn(this.db, 'schema_notes', 'TEXT');
    addColumn(this.db, 'body_size', 'INTEGER');
    addRejectedTotals(this.db);
    this.statements = new StatementCache(this.db);
  }

  /** Opens (or creates) the store, with an error that says which file could not be opened. */
  static open(file: string): EventStore {
    try {
      return new EventStore(file);
    } catch (error) {
      throw new SvcError(
        'config',
        'store_unavailable',
        `cannot open the event store ${file}: ${(error as Error).message}`,
        'check the file given with --store, its directory and their permissions',
      );
    }
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  private statement(sql: string): StatementSync {
    return this.statements.get(sql);
  }

  transaction<T>(work: () => T): T {
    return inTransaction(this.db, work);
  }

  /**
   * Records a verified event unless its id is already stored, in which case the duplicate is
   * counted. `forwardUrl` marks the event as due for forwarding in the same write.
   */
  accept(
    event: EventSummary,
    delivery: { headers: IncomingHttpHeaders; body: Uint8Array; receivedAt: number; forwardUrl: string | null },
    schemaNotes: readonly string[],
  ): { seq: number; duplicate: boolean } {
    const row = this.statement(
      `INSERT INTO events (event_id, type, resource_id, status, schema_notes, received_at, headers, body, body_size, forward_url)
       VALUES (?, ?, ?, 'accepted', ?, ?, ?, ?, ?, ?)
       ON CONFLICT (event_id) WHERE status = 'accepted' DO UPDATE SET duplicates = duplicates + 1
       RETURNING seq, duplicates`,
    ).get(
      event.id,
      event.type,
      event.resourceId ?? null,
      notesColumn(schemaNotes),
      delivery.receivedAt,
      JSON.stringify(delivery.headers),
      delivery.body,
      delivery.body.byteLength,
      delivery.forwardUrl,
    ) as Row;
    return { seq: Number(row.seq), duplicate: Number(row.duplicates) > 0 };
  }

  /**
   * Keeps a refused delivery for inspection, with what it claimed to be and the first
   * REJECTED_BODY_BYTES of its body. `trimRejected` holds these rows within their limits.
   */
  reject(
    claimed: Partial<EventSummary>,
    rejection: { reason: RejectionReason; detail: string; schemaNotes?: readonly string[] },
    delivery: { headers: IncomingHttpHeaders; body: Uint8Array; receivedAt: number },
  ): number {
    const row = this.statement(
      `INSERT INTO events (event_id, type, resource_id, status, reason, detail, schema_notes, received_at, headers, body, body_size)
       VALUES (?, ?, ?, 'rejected', ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
    ).get(
      claimed.id ?? null,
      claimed.type ?? null,
      claimed.resourceId ?? null,
      rejection.reason,
      rejection.detail,
      notesColumn(rejection.schemaNotes ?? []),
      delivery.receivedAt,
      JSON.stringify(delivery.headers),
      firstBytes(delivery.body, REJECTED_BODY_BYTES),
      delivery.body.byteLength,
    ) as Row;
    return Number(row.seq);
  }

  /** Deletes the rejected deliveries older than `limits.ttlMs`, then the oldest beyond the count and bytes allowed. */
  trimRejected(limits: RejectedLimits, now: number): void {
    this.statement("DELETE FROM events WHERE status = 'rejected' AND received_at < ?").run(now - limits.ttlMs);
    const totals = this.statement('SELECT count, bytes FROM rejected_totals');
    const deleteOldest = this.statement("DELETE FROM events WHERE seq = (SELECT seq FROM events WHERE status = 'rejected' ORDER BY received_at, seq LIMIT 1)");
    for (;;) {
      const { count, bytes } = totals.get() as Row;
      if (Number(count) <= limits.maxCount && Number(bytes) <= limits.maxBytes) return;
      if (Number(deleteOldest.run().changes) === 0) return;
    }
  }

  recordForward(seq: number, outcome: ForwardOutcome, at: number): void {
    this.statement('UPDATE events SET forward_url = ?, forward_status = ?, forward_error = ?, forwarded_at = ? WHERE seq = ?').run(
      outcome.url,
      outcome.status,
      outcome.error,
      at,
      seq,
    );
  }

  /** The accepted event with this id. */
  event(eventId: string): StoredEvent | undefined {
    const row = this.statement("SELECT * FROM events WHERE event_id = ? AND status = 'accepted'").get(eventId) as Row | undefined;
    return row && toStoredEvent(row);
  }

  /** Newest first, unless the filter asks for the oldest. */
  events(filter: EventFilter): StoredEvent[] {
    const where: string[] = [];
    const params: SQLInputValue[] = [];
    if (filter.types?.length) {
      where.push(`type IN (${filter.types.map(() => '?').join(', ')})`);
      params.push(...filter.types);
    }
    if (filter.status) {
      where.push('status = ?');
      params.push(filter.status);
    }
    if (filter.notForwarded) where.push(NOT_FORWARDED);
    if (filter.since !== undefined) {
      where.push('received_at >= ?');
      params.push(filter.since);
    }
    if (filter.until !== undefined) {
      where.push('received_at < ?');
      params.push(filter.until);
    }
    if (filter.afterSeq !== undefined) {
      where.push('seq > ?');
      params.push(filter.afterSeq);
    }
    const sql = `SELECT * FROM events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq ${filter.oldestFirst ? 'ASC' : 'DESC'} LIMIT ?`;
    return (this.db.prepare(sql).all(...params, filter.limit) as Row[]).map(toStoredEvent);
  }

  /**
   * Deletes what was received before `before` (unix ms), but for accepted events the application
   * never took, unless `includeNotForwarded`. With `dryRun`, only counts.
   */
  prune(before: number, options: { includeNotForwarded: boolean; dryRun: boolean }): PruneResult {
    const old = 'received_at < ?';
    const count = (where: string) => Number((this.statement(`SELECT COUNT(*) AS n FROM events WHERE ${where}`).get(before) as Row).n);
    const keptNotForwarded = options.includeNotForwarded ? 0 : count(`${old} AND ${NOT_FORWARDED}`);
    const doomed = options.includeNotForwarded ? old : `${old} AND NOT (${NOT_FORWARDED})`;
    if (options.dryRun) return { deleted: count(doomed), keptNotForwarded };
    const chunk = this.statement(`DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE ${doomed} LIMIT ${PRUNE_CHUNK})`);
    let deleted = 0;
    let changes: number;
    do {
      changes = Number(chunk.run(before).changes);
      deleted += changes;
    } while (changes > 0);
    return { deleted, keptNotForwarded };
  }

  /** Accepted events marked for forwarding whose forwarding never finished (the receiver stopped first). */
  unfinishedForwards(): number {
    return Number(
      (this.statement("SELECT COUNT(*) AS n FROM events WHERE status = 'accepted' AND forward_url IS NOT NULL AND forwarded_at IS NULL").get() as Row).n,
    );
  }
}
