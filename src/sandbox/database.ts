import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type { Applicant, Document, EventType, Key, Report } from '../api/types.js';
import { inTransaction, openPrivateDatabase, StatementCache } from '../core/sqlite.js';

export type KeyRole = 'test' | 'read_only' | 'ip_locked' | 'admin' | 'other_workspace' | 'other_workspace_admin';

export interface StoredKey {
  key: Key;
  workspaceId: string;
  role: KeyRole | null;
  /** Kept only for the keys the sandbox made itself, so `svc sandbox keys` can show them again. */
  secret: string | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

export interface Delivery {
  id: number;
  eventId: string;
  eventType: EventType;
  url: string;
  attempts: number;
  status: DeliveryStatus;
  nextAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DeliveryAttempt {
  deliveryId: number;
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  durationMs: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS keys (
  id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, role TEXT, secret TEXT,
  body TEXT NOT NULL, seq INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS applicants (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
  id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, applicant_id TEXT, status TEXT NOT NULL, body TEXT NOT NULL, content BLOB
);
CREATE INDEX IF NOT EXISTS documents_by_applicant ON documents (workspace_id, applicant_id);
CREATE TABLE IF NOT EXISTS reports (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, workspace_id TEXT NOT NULL,
  applicant_id TEXT NOT NULL, status TEXT NOT NULL, body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS reports_by_workspace ON reports (workspace_id, seq);
CREATE TABLE IF NOT EXISTS usage (workspace_id TEXT NOT NULL, month TEXT NOT NULL, reports INTEGER NOT NULL, PRIMARY KEY (workspace_id, month));
CREATE TABLE IF NOT EXISTS events (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL REFERENCES events (id), url TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL, next_attempt_at INTEGER,
  last_status INTEGER, last_error TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (status, next_attempt_at);
CREATE TABLE IF NOT EXISTS delivery_attempts (
  delivery_id INTEGER NOT NULL REFERENCES deliveries (id), attempt INTEGER NOT NULL, at TEXT NOT NULL,
  status INTEGER, error TEXT, duration_ms INTEGER NOT NULL, PRIMARY KEY (delivery_id, attempt)
);
`;

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

type Row = Record<string, SQLInputValue>;

/** A resource the store keeps as JSON text, as it was stored. */
function stored<T>(text: SQLInputValue | undefined): T {
  return JSON.parse(text as string) as T;
}

function databaseFile(dataDir: string): string {
  return join(dataDir, 'sandbox.db');
}

const BUSY_TIMEOUT_MS = 5000;

/**
 * A document's uploaded content, read through a read-only connection of its own: a worker thread
 * reads it so that the copy of up to 10 MiB stays off the sandbox's event loop.
 */
export function readDocumentContent(dataDir: string, id: string): Uint8Array | undefined {
  const db = new DatabaseSync(databaseFile(dataDir), { readOnly: true, timeout: BUSY_TIMEOUT_MS });
  try {
    return db.prepare('SELECT content FROM documents WHERE id = ?').get(id)?.content as Uint8Array | undefined;
  } finally {
    db.close();
  }
}

/** The sandbox's state in one SQLite file (WAL): every resource as the JSON the API returns. */
export class SandboxStore {
  readonly db: DatabaseSync;
  private readonly statements: StatementCache;

  constructor(dataDir: string) {
    // It holds the sandbox's keys and webhook secret.
    this.db = openPrivateDatabase(
      databaseFile(dataDir),
      `PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA foreign_keys = ON;`,
    );
    this.db.exec(SCHEMA);
    this.statements = new StatementCache(this.db);
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  private statement(sql: string): StatementSync {
    return this.statements.get(sql);
  }

  private get(sql: string, ...params: SQLInputValue[]): Row | undefined {
    return this.statement(sql).get(...params);
  }

  private all(sql: string, ...params: SQLInputValue[]): Row[] {
    return this.statement(sql).all(...params);
  }

  private run(sql: string, ...params: SQLInputValue[]): number {
    return Number(this.statement(sql).run(...params).changes);
  }

  /** Runs `work` in one transaction: the state change and the events it emits commit together. */
  transaction<T>(work: () => T): T {
    return inTransaction(this.db, work);
  }

  // ---------------------------------------------------------------- settings

  setting(name: string): string | undefined {
    return this.get('SELECT value FROM settings WHERE name = ?', name)?.value as string | undefined;
  }

  setSetting(name: string, value: string): void {
    this.run('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value', name, value);
  }

  // ---------------------------------------------------------------- keys

  insertKey(stored: StoredKey, secretHash: string): void {
    this.run(
      'INSERT INTO keys (id, workspace_id, hash, role, secret, body, seq) VALUES (?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM keys))',
      stored.key.id,
      stored.workspaceId,
      secretHash,
      stored.role,
      stored.secret,
      JSON.stringify(stored.key),
    );
  }

  private toStoredKey(row: Row | undefined): StoredKey | undefined {
    if (!row) return undefined;
    return { key: stored(row.body), workspaceId: row.workspace_id as string, role: row.role as KeyRole | null, secret: row.secret as string | null };
  }

  keyByHash(secretHash: string): StoredKey | undefined {
    return this.toStoredKey(this.get('SELECT * FROM keys WHERE hash = ?', secretHash));
  }

  keyById(workspaceId: string, id: string): StoredKey | undefined {
    return this.toStoredKey(this.get('SELECT * FROM keys WHERE workspace_id = ? AND id = ?', workspaceId, id));
  }

  keysOf(workspaceId: string, limit: number, startingAfter?: string): { keys: Key[]; hasMore: boolean } {
    const rows = startingAfter
      ? this.all(
          'SELECT body FROM keys WHERE workspace_id = ? AND seq < (SELECT seq FROM keys WHERE id = ?) ORDER BY seq DESC LIMIT ?',
          workspaceId,
          startingAfter,
          limit + 1,
        )
      : this.all('SELECT body FROM keys WHERE workspace_id = ? ORDER BY seq DESC LIMIT ?', workspaceId, limit + 1);
    return { keys: rows.slice(0, limit).map((row) => stored(row.body)), hasMore: rows.length > limit };
  }

  keyExists(id: string): boolean {
    return this.get('SELECT 1 AS found FROM keys WHERE id = ?', id) !== undefined;
  }

  sandboxKeys(): StoredKey[] {
    return this.all('SELECT * FROM keys WHERE role IS NOT NULL ORDER BY seq').map((row) => this.toStoredKey(row)!);
  }

  updateKey(workspaceId: string, key: Key): void {
    this.run('UPDATE keys SET body = ? WHERE workspace_id = ? AND id = ?', JSON.stringify(key), workspaceId, key.id);
  }

  markKeysUsed(uses: Iterable<{ id: string; at: string; ip: string }>): void {
    for (const use of uses) {
      this.run("UPDATE keys SET body = json_set(body, '$.last_used_at', ?, '$.last_used_ip', ?) WHERE id = ?", use.at, use.ip, use.id);
    }
  }

  // ---------------------------------------------------------------- applicants

  applicant(workspaceId: string, id: string): Applicant | undefined {
    const row = this.get('SELECT body FROM applicants WHERE workspace_id = ? AND id = ?', workspaceId, id);
    return row && stored(row.body);
  }

  saveApplicant(workspaceId: string, applicant: Applicant): void {
    this.run(
      'INSERT INTO applicants (id, workspace_id, body) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body',
      applicant.id,
      workspaceId,
      JSON.stringify(applicant),
    );
  }

  // ---------------------------------------------------------------- documents

  document(workspaceId: string, id: string): Document | undefined {
    const row = this.get('SELECT body FROM documents WHERE workspace_id = ? AND id = ?', workspaceId, id);
    return row && stored(row.body);
  }

  insertDocument(workspaceId: string, document: Document, content: Uint8Array): void {
    this.run(
      'INSERT INTO documents (id, workspace_id, applicant_id, status, body, content) VALUES (?, ?, ?, ?, ?, ?)',
      document.id,
      workspaceId,
      document.applicant_id,
      document.status,
      JSON.stringify(document),
      content,
    );
  }

  /** Saves a processed document; a rejected one loses its file (spec part 3: it is discarded). */
  saveDocument(document: Document): void {
    const discard = document.status === 'rejected' ? 1 : 0;
    this.run(
      'UPDATE documents SET status = ?, body = ?, content = CASE WHEN ? THEN NULL ELSE content END WHERE id = ?',
      document.status,
      JSON.stringify(document),
      discard,
      document.id,
    );
  }

  /** The first `length` bytes of a document's file: enough to recognise its format. */
  documentStart(id: string, length: number): Uint8Array | undefined {
    return this.get('SELECT substr(content, 1, ?) AS start FROM documents WHERE id = ?', length, id)?.start as Uint8Array | undefined;
  }

  documentsOfApplicant(workspaceId: string, applicantId: string): Document[] {
    return this.all('SELECT body FROM documents WHERE workspace_id = ? AND applicant_id = ?', workspaceId, applicantId).map((row) => stored(row.body));
  }

  documentsInStatus(status: string): Array<{ workspaceId: string; document: Document }> {
    return this.all('SELECT workspace_id, body FROM documents WHERE status = ?', status).map((row) => ({
      workspaceId: row.workspace_id as string,
      document: stored(row.body),
    }));
  }

  // ---------------------------------------------------------------- reports

  /** The report as the JSON text the API returns: the hot path serves it without parsing it. */
  reportJson(workspaceId: string, id: string): string | undefined {
    return this.get('SELECT body FROM reports WHERE workspace_id = ? AND id = ?', workspaceId, id)?.body as string | undefined;
  }

  report(workspaceId: string, id: string): Report | undefined {
    const body = this.reportJson(workspaceId, id);
    return body === undefined ? undefined : stored(body);
  }

  insertReport(workspaceId: string, report: Report): void {
    this.run(
      'INSERT INTO reports (id, workspace_id, applicant_id, status, body) VALUES (?, ?, ?, ?, ?)',
      report.id,
      workspaceId,
      report.applicant_id,
      report.status,
      JSON.stringify(report),
    );
  }

  saveReport(report: Report): void {
    this.run('UPDATE reports SET status = ?, body = ? WHERE id = ?', report.status, JSON.stringify(report), report.id);
  }

  deleteReport(workspaceId: string, id: string): boolean {
    return this.run('DELETE FROM reports WHERE workspace_id = ? AND id = ?', workspaceId, id) > 0;
  }

  reportSeq(workspaceId: string, id: string): number | undefined {
    return this.get('SELECT seq FROM reports WHERE workspace_id = ? AND id = ?', workspaceId, id)?.seq as number | undefined;
  }

  reportsOf(
    workspaceId: string,
    filter: { limit: number; beforeSeq?: number; status?: string; applicantId?: string },
  ): { reports: Report[]; hasMore: boolean } {
    const conditions = ['workspace_id = ?'];
    const params: SQLInputValue[] = [workspaceId];
    if (filter.beforeSeq !== undefined) {
      conditions.push('seq < ?');
      params.push(filter.beforeSeq);
    }
    if (filter.status) {
      conditions.push('status = ?');
      params.push(filter.status);
    }
    if (filter.applicantId) {
      conditions.push('applicant_id = ?');
      params.push(filter.applicantId);
    }
    const rows = this.all(`SELECT body FROM reports WHERE ${conditions.join(' AND ')} ORDER BY seq DESC LIMIT ?`, ...params, filter.limit + 1);
    return { reports: rows.slice(0, filter.limit).map((row) => stored(row.body)), hasMore: rows.length > filter.limit };
  }

  reportsInStatus(...statuses: string[]): Array<{ workspaceId: string; report: Report }> {
    return this.all(`SELECT workspace_id, body FROM reports WHERE status IN (${statuses.map(() => '?').join(', ')}) ORDER BY seq`, ...statuses).map((row) => ({
      workspaceId: row.workspace_id as string,
      report: stored(row.body),
    }));
  }

  // ---------------------------------------------------------------- usage (monthly quota)

  reportsThisMonth(workspaceId: string, month: string): number {
    return (this.get('SELECT reports FROM usage WHERE workspace_id = ? AND month = ?', workspaceId, month)?.reports as number | undefined) ?? 0;
  }

  countReport(workspaceId: string, month: string): void {
    this.run('INSERT INTO usage (workspace_id, month, reports) VALUES (?, ?, 1) ON CONFLICT DO UPDATE SET reports = reports + 1', workspaceId, month);
  }

  // ---------------------------------------------------------------- events and deliveries

  insertEvent(event: { id: string; workspaceId: string; type: EventType; body: string; createdAt: string }, urls: readonly string[], dueAt: number): void {
    this.run(
      'INSERT INTO events (id, workspace_id, type, body, created_at) VALUES (?, ?, ?, ?, ?)',
      event.id,
      event.workspaceId,
      event.type,
      event.body,
      event.createdAt,
    );
    for (const url of urls) {
      this.run(
        "INSERT INTO deliveries (event_id, url, status, next_attempt_at, created_at, updated_at) VALUES (?, ?, 'pending', ?, ?, ?)",
        event.id,
        url,
        dueAt,
        event.createdAt,
        event.createdAt,
      );
    }
  }

  event(id: string): { id: string; type: EventType; body: string } | undefined {
    const row = this.get('SELECT id, type, body FROM events WHERE id = ?', id);
    return row && { id: row.id as string, type: row.type as EventType, body: row.body as string };
  }

  private toDelivery(row: Row): Delivery {
    return {
      id: row.id as number,
      eventId: row.event_id as string,
      eventType: row.type as EventType,
      url: row.url as string,
      attempts: row.attempts as number,
      status: row.status as DeliveryStatus,
      nextAttemptAt: row.next_attempt_at as number | null,
      lastStatus: row.last_status as number | null,
      lastError: row.last_error as string | null,
      createdAt: row.created_at as string,
      updatedAt: row.updated_at as string,
    };
  }

  dueDeliveries(now: number, limit: number): Delivery[] {
    return this.all(
      "SELECT d.*, e.type FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.status = 'pending' AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at LIMIT ?",
      now,
      limit,
    ).map((row) => this.toDelivery(row));
  }

  /** When the next pending delivery is due, those of `excluding` (attempts under way) aside. */
  nextDueAt(excluding: readonly number[] = []): number | undefined {
    const aside = excluding.length ? ` AND id NOT IN (${excluding.map(() => '?').join(', ')})` : '';
    return (this.get(`SELECT MIN(next_attempt_at) AS due FROM deliveries WHERE status = 'pending'${aside}`, ...excluding)?.due as number | null) ?? undefined;
  }

  deliveries(filter: { status?: DeliveryStatus; eventId?: string; limit: number }): Delivery[] {
    const conditions = ['1 = 1'];
    const params: SQLInputValue[] = [];
    if (filter.status) {
      conditions.push('d.status = ?');
      params.push(filter.status);
    }
    if (filter.eventId) {
      conditions.push('d.event_id = ?');
      params.push(filter.eventId);
    }
    return this.all(
      `SELECT d.*, e.type FROM deliveries d JOIN events e ON e.id = d.event_id WHERE ${conditions.join(' AND ')} ORDER BY d.id DESC LIMIT ?`,
      ...params,
      filter.limit,
    ).map((row) => this.toDelivery(row));
  }

  attemptsOf(deliveryId: number): DeliveryAttempt[] {
    return this.all('SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt', deliveryId).map((row) => ({
      deliveryId: row.delivery_id as number,
      attempt: row.attempt as number,
      at: row.at as string,
      status: row.status as number | null,
      error: row.error as string | null,
      durationMs: row.duration_ms as number,
    }));
  }

  /** Records one attempt and the delivery's next state, together. */
  recordAttempt(delivery: Delivery, attempt: DeliveryAttempt, next: { status: DeliveryStatus; nextAttemptAt: number | null }): void {
    this.transaction(() => {
      this.run(
        'INSERT INTO delivery_attempts (delivery_id, attempt, at, status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?)',
        attempt.deliveryId,
        attempt.attempt,
        attempt.at,
        attempt.status,
        attempt.error,
        attempt.durationMs,
      );
      this.run(
        'UPDATE deliveries SET attempts = ?, status = ?, next_attempt_at = ?, last_status = ?, last_error = ?, updated_at = ? WHERE id = ?',
        attempt.attempt,
        next.status,
        next.nextAttemptAt,
        attempt.status,
        attempt.error,
        attempt.at,
        delivery.id,
      );
    });
  }

  /** A new delivery of a stored event (a replay). */
  addDelivery(eventId: string, url: string, dueAt: number): number {
    const at = new Date().toISOString();
    this.run(
      "INSERT INTO deliveries (event_id, url, status, next_attempt_at, created_at, updated_at) VALUES (?, ?, 'pending', ?, ?, ?)",
      eventId,
      url,
      dueAt,
      at,
      at,
    );
    return Number(this.get('SELECT last_insert_rowid() AS id')?.id);
  }

  delivery(id: number): Delivery | undefined {
    const row = this.get('SELECT d.*, e.type FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.id = ?', id);
    return row && this.toDelivery(row);
  }
}
