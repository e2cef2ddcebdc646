import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { JSONValue, Sql } from 'postgres';
import { connectPostgres, migrateSchema, type OwnSchema } from '../core/postgres.js';
import { describePostgres, type PostgresLocation } from '../core/postgres-url.js';
import { SvcError } from '../core/errors.js';
import {
  assertRotationId,
  readRecord,
  type RotationJournal,
  type RotationLock,
  type RotationRecord,
  rotationInProgress,
  rotationMovedOn,
  rotationNotFound,
} from './journal.js';

/** Each step takes the schema from the version before it. A row is a journal as the file would hold it. */
const MIGRATIONS: readonly string[] = [
  `
CREATE TABLE rotations (
  id text PRIMARY KEY,
  record jsonb NOT NULL CHECK (record->>'id' = id)
);
CREATE INDEX rotations_of_key ON rotations ((record->'old_key'->>'id'), (record->>'base_url'));
`,
];

const ROTATION_SCHEMA: OwnSchema = {
  name: 'rotations',
  what: 'rotation store',
  others: 'the other runners',
  risk: 'it could read every rotation, and write journals that have svc revoke another key',
  versionTable: 'rotation_schema_version',
  tables: ['rotations'],
  migrations: MIGRATIONS,
};

/** How often a held lock's session is checked, and how long the check may take before the lock is taken for lost. */
const CHECK_EVERY_MS = 5_000;
const ANSWER_WITHIN_MS = 10_000;

/**
 * The server ends the session of a runner it has not heard from for 30 s (its keepalives unanswered, or
 * data it sent unacknowledged), and so lets its lock go: later than the runner finds the lock lost itself
 * (within 15 s), so that a runner cut off by the network has stopped before another may take over.
 */
const SERVER_GIVES_UP = { tcp_keepalives_idle: 15, tcp_keepalives_interval: 5, tcp_keepalives_count: 3, tcp_user_timeout: 30_000 };

const HOLDER_PREFIX = 'svc keys rotate: ';

/** The key of a rotation's advisory lock, a 64-bit hash of the base URL and the key id, as pg_locks shows it (classid, objid). */
interface AdvisoryKey {
  key: string;
  classid: string;
  objid: string;
}

function advisoryKey(baseUrl: string, keyId: string): AdvisoryKey {
  const key = createHash('sha256').update(`${baseUrl}\n${keyId}`).digest().readBigInt64BE(0);
  const unsigned = BigInt.asUintN(64, key);
  return { key: key.toString(), classid: (unsigned >> 32n).toString(), objid: (unsigned & 0xffffffffn).toString() };
}

function heldBy(sql: Sql, lock: AdvisoryKey, session: 'this' | 'any') {
  return sql`
    SELECT l.pid FROM pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.classid = ${lock.classid}::oid AND l.objid = ${lock.objid}::oid AND l.objsubid = 1
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      ${session === 'this' ? sql`AND l.pid = pg_backend_pid()` : sql``}`;
}

function unavailable(location: PostgresLocation, error: unknown): SvcError {
  return new SvcError(
    'config',
    'store_unavailable',
    `cannot open the rotation store ${describePostgres(location)}: ${(error as Error).message}`,
    "check the connection string (--rotation-store, SVC_ROTATION_STORE or the profile's rotation_store), that the server runs, and the grants described in docs/key-rotation.md",
    { cause: error },
  );
}

/**
 * A rotation's lock in the shared store: a session-level advisory lock, held by a session of its own for
 * the whole run, which the server lets go when the session ends, however the runner ended. The session is
 * checked every 5 s: a lock whose session does not answer within 10 s, or no longer holds it (the
 * connection was made anew), is lost, and the run stops. Journals are written on that session, and only
 * while it holds the lock.
 */
class SessionLock implements RotationLock {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private checking = false;

  constructor(
    readonly session: Sql,
    readonly lock: AdvisoryKey,
    private readonly keyId: string,
    private readonly where: string,
  ) {
    this.timer = setInterval(() => void this.check(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  get lost(): AbortSignal {
    return this.controller.signal;
  }

  private async check(): Promise<void> {
    if (this.checking || this.lost.aborted) return;
    this.checking = true;
    let timer: NodeJS.Timeout | undefined;
    try {
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no answer')), ANSWER_WITHIN_MS)));
      const held = await Promise.race([heldBy(this.session, this.lock, 'this'), late]);
      if (held.length === 0) this.lose(new Error('its session no longer holds it'));
    } catch (error) {
      this.lose(error);
    } finally {
      clearTimeout(timer);
      this.checking = false;
    }
  }

  /** Ends the session (what is under way on it fails) and stops the run; the error it stops with. */
  lose(cause: unknown): SvcError {
    if (!this.lost.aborted) {
      clearInterval(this.timer);
      this.controller.abort(
        new SvcError(
          'network',
          'rotation_lock_lost',
          `the rotation of ${this.keyId} lost its lock in ${this.where} (${(cause as Error).message}): another runner may take it over, so this run stopped`,
          'run the command again once the database answers: it continues from the journal',
          { cause },
        ),
      );
      void this.session.end({ timeout: 0 });
    }
    return this.lost.reason as SvcError;
  }

  /** Runs `query` on the lock's session; any failure of it loses the lock, as nothing then shows that it is still held. */
  async query<T>(query: (session: Sql) => Promise<T>): Promise<T> {
    if (this.lost.aborted) throw this.lost.reason;
    try {
      return await query(this.session);
    } catch (error) {
      throw this.lose(error);
    }
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    if (!this.lost.aborted) await this.session`SELECT pg_advisory_unlock(${this.lock.key}::bigint)`.catch(() => undefined);
    await this.session.end({ timeout: 1 });
  }
}

/**
 * The rotations of every runner in a PostgreSQL database they share: a row per rotation (the journal, as
 * the file would hold it; never a secret), a lock per rotated key (see SessionLock).
 */
export class PostgresJournal implements RotationJournal {
  private readonly held = new Map<string, SessionLock>();

  private constructor(
    private readonly sql: Sql,
    private readonly location: PostgresLocation,
  ) {}

  /** Connects, creates or migrates the schema, with an error that says what to do when that fails. */
  static async open(location: PostgresLocation): Promise<PostgresJournal> {
    const sql = connectPostgres(location, { applicationName: 'svc keys', connections: 2, connectTimeoutS: 10 });
    try {
      await migrateSchema(sql, location, ROTATION_SCHEMA);
    } catch (error) {
      await sql.end({ timeout: 1 });
      throw error instanceof SvcError ? error : unavailable(location, error);
    }
    return new PostgresJournal(sql, location);
  }

  get where(): string {
    return `the rotation store ${describePostgres(this.location)}`;
  }

  async save(record: RotationRecord): Promise<void> {
    const lock = this.held.get(advisoryKey(record.base_url, record.old_key.id).key);
    if (!lock) throw new Error(`rotation ${record.id} was to be saved without the lock of ${record.old_key.id}`);
    record.updated_at = new Date().toISOString();
    const saved = await lock.query(
      (sql) => sql`
        INSERT INTO rotations (id, record) SELECT ${record.id}, ${sql.json(record as unknown as JSONValue)}
        WHERE EXISTS (${heldBy(sql, lock.lock, 'this')})
        ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record
        RETURNING id`,
    );
    if (saved.length === 0) throw lock.lose(new Error('its session no longer holds it'));
  }

  async load(id: string): Promise<RotationRecord> {
    assertRotationId(id);
    const [row] = await this.sql`SELECT record FROM rotations WHERE id = ${id}`;
    if (!row) throw rotationNotFound(id, this.where);
    return readRecord(row.record, id, `rotation ${id} in ${this.where}`);
  }

  async list(of?: { oldKeyId: string; baseUrl: string }): Promise<RotationRecord[]> {
    const rows = of
      ? await this.sql`SELECT id, record FROM rotations WHERE record->'old_key'->>'id' = ${of.oldKeyId} AND record->>'base_url' = ${of.baseUrl}`
      : await this.sql`SELECT id, record FROM rotations`;
    return rows
      .map((row) => readRecord(row.record, row.id as string, `rotation ${row.id as string} in ${this.where}`))
      .sort((a, b) => b.started_at.localeCompare(a.started_at));
  }

  async lock(keyId: string, baseUrl: string): Promise<RotationLock> {
    const lock = advisoryKey(baseUrl, keyId);
    const session = connectPostgres(this.location, {
      applicationName: `${HOLDER_PREFIX}process ${process.pid} on ${hostname()}`,
      connections: 1,
      connectTimeoutS: 10,
      keepAliveS: 5,
      session: true,
      settings: SERVER_GIVES_UP,
    });
    let won: boolean;
    try {
      const [row] = await session`SELECT pg_try_advisory_lock(${lock.key}::bigint) AS won`;
      won = row!.won as boolean;
    } catch (error) {
      await session.end({ timeout: 0 });
      throw unavailable(this.location, error);
    }
    if (!won) {
      await session.end({ timeout: 1 });
      throw rotationInProgress(keyId, await this.holderOf(lock));
    }
    const held = new SessionLock(session, lock, keyId, this.where);
    this.held.set(lock.key, held);
    return {
      lost: held.lost,
      release: async () => {
        this.held.delete(lock.key);
        await held.release();
      },
    };
  }

  /** Who holds a lock, as its session names itself ("process 123 on runner-7"), where the server shows it. */
  private async holderOf(lock: AdvisoryKey): Promise<string | undefined> {
    const [row] = await this.sql`
      SELECT a.application_name FROM (${heldBy(this.sql, lock, 'any')}) l JOIN pg_stat_activity a ON a.pid = l.pid`.catch(() => []);
    const name = row?.application_name as string | null | undefined;
    return name?.startsWith(HOLDER_PREFIX) ? name.slice(HOLDER_PREFIX.length) : undefined;
  }

  async assertUnchanged(record: RotationRecord): Promise<void> {
    const [row] = await this.sql`SELECT record->>'updated_at' AS updated_at FROM rotations WHERE id = ${record.id}`;
    if (row === undefined || row.updated_at === record.updated_at) return;
    throw rotationMovedOn(record);
  }

  async close(): Promise<void> {
    await Promise.all([...this.held.values()].map((lock) => lock.release()));
    this.held.clear();
    await this.sql.end({ timeout: 5 });
  }
}
