import type { IncomingHttpHeaders } from 'node:http';
import postgres, { type Sql } from 'postgres';
import { connectPostgres, migrateSchema, type OwnSchema } from '../core/postgres.js';
import type { PostgresLocation } from '../core/postgres-url.js';
import { SvcError } from '../core/errors.js';
import type { EventSummary } from './envelope.js';
import {
  type EventFilter,
  type ForwardOutcome,
  NOT_FORWARDED,
  notesColumn,
  PRUNE_CHUNK,
  type PruneResult,
  type RejectedLimits,
  type StoredEvent,
  toStoredEvent,
} from './event-rows.js';
import type { RejectionReason } from './verify.js';

/**
 * Each step takes the schema from the version before it. Forwarding is claimed with a lease
 * (claimed_by, lease_until, on the database's clock, so that the replicas' clocks do not matter).
 */
const MIGRATIONS: readonly string[] = [
  `
CREATE TABLE events (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id text,
  type text,
  resource_id text,
  status text NOT NULL CHECK (status IN ('accepted', 'rejected')),
  reason text,
  detail text,
  schema_notes text,
  received_at bigint NOT NULL,
  duplicates integer NOT NULL DEFAULT 0,
  headers text NOT NULL,
  body bytea NOT NULL,
  body_size integer NOT NULL,
  forward_url text,
  forward_status integer,
  forward_error text,
  forwarded_at bigint,
  claimed_by text,
  lease_until timestamptz
);
CREATE UNIQUE INDEX accepted_event_id ON events (event_id) WHERE status = 'accepted';
CREATE INDEX events_by_time ON events (received_at);
CREATE INDEX rejected_by_time ON events (received_at) WHERE status = 'rejected';
CREATE INDEX forwards_due ON events (lease_until) WHERE forward_url IS NOT NULL AND forwarded_at IS NULL;
`,
];

/** The schema of the events, which svc owns and migrates. */
const EVENT_SCHEMA: OwnSchema = {
  name: 'webhooks',
  what: 'event store',
  others: 'the other replicas',
  risk: 'it could read every event, and write events a listener would forward',
  versionTable: 'schema_version',
  tables: ['events'],
  migrations: MIGRATIONS,
};

/** Accepted events whose forwarding has not finished: under way on some replica, or left by one that stopped. */
const FORWARD_UNFINISHED = 'forward_url IS NOT NULL AND forwarded_at IS NULL';

/** A claimed row's headers: what is not a header's text (a row written by hand may hold anything) is left out, so that checking it cannot throw. */
function claimedHeaders(text: string): IncomingHttpHeaders {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const isText = (value: unknown) => typeof value === 'string' || (Array.isArray(value) && value.every((item) => typeof item === 'string'));
  return Object.fromEntries(Object.entries(parsed).filter(([, value]) => isText(value)));
}

/**
 * Text as a PostgreSQL text column takes it: NUL, the one character it refuses, and lone surrogates,
 * which have no UTF-8, become U+FFFD. A forged delivery's claims may hold either.
 */
function storable(text: string | null | undefined): string | null {
  return text === null || text === undefined ? null : text.replace(/[\0\p{Cs}]/gu, '\uFFFD');
}

/** SQLSTATE classes of a row the server refuses: data exception (22), integrity constraint (23), program limit (54, such as an index row too large). */
const ROW_REFUSED = ['22', '23', '54'];

/** Whether the server refused a write for what one of its rows holds, rather than being unable to write at all. */
export function refusedForItsRows(error: unknown): boolean {
  return error instanceof postgres.PostgresError && ROW_REFUSED.includes(error.code.slice(0, 2));
}

interface StoreOptions {
  connections?: number;
  /**
   * The listener's, whose answers cannot wait: the server gives up a statement after this (waiting for a
   * lock, say) and ends a transaction left idle after twice this; a write not done after twice this
   * went to a connection that hangs, and the connections are made anew.
   */
  statementTimeoutMs?: number;
}

function connect(location: PostgresLocation, options: StoreOptions): Sql {
  const timeout = options.statementTimeoutMs;
  return connectPostgres(location, {
    applicationName: 'svc webhooks',
    connections: options.connections,
    // An answer is due to the sender within 10 s: a database that cannot be reached fails the delivery (503) well before.
    connectTimeoutS: 5,
    ...(timeout !== undefined && { settings: { statement_timeout: timeout, idle_in_transaction_session_timeout: 2 * timeout } }),
  });
}

/** One delivery to record in a shared transaction. */
export type Write =
  | {
      op: 'accept';
      event: EventSummary;
      delivery: { headers: IncomingHttpHeaders; body: Uint8Array; receivedAt: number; forwardUrl: string | null };
      schemaNotes: readonly string[];
    }
  | {
      op: 'reject';
      claimed: Partial<EventSummary>;
      rejection: { reason: RejectionReason; detail: string; schemaNotes: readonly string[] };
      /** `kept`: the first REJECTED_BODY_BYTES of the body, in a buffer of their own; `bodySize`: the body's size as received. */
      delivery: { headers: IncomingHttpHeaders; kept: Buffer; bodySize: number; receivedAt: number };
    };

/** What an accepted write gave: the row, whether the event id was stored before, and whether this replica now holds its forwarding. */
export type Written = { seq: number; duplicate: boolean; claimed: boolean } | { seq: number };

/** An event whose forwarding this replica claimed from one that did not finish it (its lease expired): its row as it is, which anyone who may write the table could have written. */
export interface ClaimedForward {
  seq: number;
  eventId: string | null;
  type: string | null;
  resourceId: string | null;
  headers: IncomingHttpHeaders;
  body: Buffer;
  forwardUrl: string;
}

/**
 * The receiver's durable record in a PostgreSQL database that several `svc webhooks listen` share: one
 * row per event id whichever replica received it (a unique index), each event's forwarding held by one
 * replica at a time (a lease it renews, which another takes over once it has expired).
 */
export class PostgresEventStore {
  /**
   * Lease renewals have a connection of their own, so that they never wait behind the writes: however
   * busy the pool, a forward under way keeps its lease and is not taken over while it runs.
   */
  private leases: Sql;

  private constructor(
    private sql: Sql,
    readonly location: PostgresLocation,
    private readonly options: StoreOptions,
  ) {
    this.leases = connect(location, { ...options, connections: 1 });
  }

  /** Connects, creates or migrates the schema, with an error that says what to do when that fails. */
  static async open(location: PostgresLocation, options: StoreOptions = {}): Promise<PostgresEventStore> {
    const sql = connect(location, options);
    const store = new PostgresEventStore(sql, location, options);
    try {
      await store.migrate();
    } catch (error) {
      await sql.end({ timeout: 1 });
      if (error instanceof SvcError) throw error;
      throw new SvcError(
        'config',
        'store_unavailable',
        `cannot open the event store in PostgreSQL: ${(error as Error).message}`,
        'check the connection string (--store, SVC_WEBHOOK_STORE or the profile), that the server runs, and the grants described in docs/webhooks.md',
      );
    }
    return store;
  }

  /** Brings the schema to its latest version, one replica at a time; nothing to do, and no DDL grant needed, when it is there. */
  private migrate(): Promise<void> {
    return migrateSchema(this.sql, this.location, EVENT_SCHEMA);
  }

  async close(): Promise<void> {
    await Promise.all([this.sql.end({ timeout: 5 }), this.leases.end({ timeout: 5 })]);
  }

  /**
   * Records the writes in one transaction, in an order every replica shares (by event id), so that two
   * replicas storing the same events never wait on each other in a circle. A new event due for
   * forwarding is claimed by this replica, with a lease of `leaseMs`, in the same write.
   */
  async write(writes: readonly Write[], replica: string, leaseMs: number): Promise<Written[]> {
    const order = writes.map((_, index) => index);
    const key = (write: Write) => (write.op === 'accept' ? write.event.id : '');
    order.sort((a, b) => (key(writes[a]!) < key(writes[b]!) ? -1 : key(writes[a]!) > key(writes[b]!) ? 1 : a - b));
    const results: Written[] = [];
    await this.unlessHung('sql', (sql) =>
      sql.begin(async (tx) => {
        const queries = order.map(async (index) => {
          const write = writes[index]!;
          if (write.op === 'accept') {
            const { event, delivery, schemaNotes } = write;
            const forward = delivery.forwardUrl;
            const [row] = await tx`
            INSERT INTO events (event_id, type, resource_id, status, schema_notes, received_at, headers, body, body_size, forward_url, claimed_by, lease_until)
            VALUES (${storable(event.id)}, ${storable(event.type)}, ${storable(event.resourceId)}, 'accepted', ${notesColumn(schemaNotes)}, ${delivery.receivedAt},
                    ${JSON.stringify(delivery.headers)}, ${Buffer.from(delivery.body)}, ${delivery.body.byteLength}, ${storable(forward)},
                    ${forward === null ? null : replica}, ${forward === null ? null : tx`now() + ${leaseMs} * interval '1 millisecond'`})
            ON CONFLICT (event_id) WHERE status = 'accepted' DO UPDATE SET duplicates = events.duplicates + 1
            RETURNING seq, duplicates`;
            const duplicate = Number(row!.duplicates) > 0;
            results[index] = { seq: Number(row!.seq), duplicate, claimed: !duplicate && forward !== null };
          } else {
            const { claimed, rejection, delivery } = write;
            const [row] = await tx`
            INSERT INTO events (event_id, type, resource_id, status, reason, detail, schema_notes, received_at, headers, body, body_size)
            VALUES (${storable(claimed.id)}, ${storable(claimed.type)}, ${storable(claimed.resourceId)}, 'rejected', ${rejection.reason}, ${storable(rejection.detail)},
                    ${notesColumn(rejection.schemaNotes)}, ${delivery.receivedAt}, ${JSON.stringify(delivery.headers)}, ${delivery.kept}, ${delivery.bodySize})
            RETURNING seq`;
            results[index] = { seq: Number(row!.seq) };
          }
        });
        await Promise.all(queries);
      }),
    );
    return results;
  }

  /**
   * Runs `query` on `pool`; one not done after twice the statement timeout went to a connection that
   * hangs, and the pool is dropped (which fails what is under way on it) for a new one.
   */
  private async unlessHung<T>(pool: 'sql' | 'leases', query: (sql: Sql) => Promise<T>): Promise<T> {
    const timeout = this.options.statementTimeoutMs;
    const reconnect = () => {
      const hung = this[pool];
      this[pool] = connect(this.location, pool === 'leases' ? { ...this.options, connections: 1 } : this.options);
      void hung.end({ timeout: 0 });
    };
    const hung = timeout === undefined ? undefined : setTimeout(reconnect, 2 * timeout);
    try {
      return await query(this[pool]);
    } finally {
      clearTimeout(hung);
    }
  }

  /** Deletes the rejected deliveries older than `limits.ttlMs`, then the oldest beyond the count and bytes allowed. */
  async trimRejected(limits: RejectedLimits, now: number): Promise<void> {
    await this.sql`DELETE FROM events WHERE status = 'rejected' AND received_at < ${now - limits.ttlMs}`;
    await this.sql`
      DELETE FROM events WHERE seq IN (
        SELECT seq FROM (
          SELECT seq, count(*) OVER newest AS n, sum(octet_length(body) + octet_length(headers) + coalesce(octet_length(detail), 0)) OVER newest AS bytes
          FROM events WHERE status = 'rejected' WINDOW newest AS (ORDER BY received_at DESC, seq DESC)
        ) kept WHERE n > ${limits.maxCount} OR bytes > ${limits.maxBytes})`;
  }

  /** Records a forward's outcome and lets go of its claim. */
  async recordForward(seq: number, outcome: ForwardOutcome, at: number): Promise<void> {
    await this.sql`
      UPDATE events SET forward_url = ${storable(outcome.url)}, forward_status = ${outcome.status}, forward_error = ${storable(outcome.error)}, forwarded_at = ${at},
        claimed_by = NULL, lease_until = NULL
      WHERE seq = ${seq}`;
  }

  /** Extends this replica's leases on the forwards it has under way. */
  async renewLeases(seqs: readonly number[], replica: string, leaseMs: number): Promise<void> {
    await this.unlessHung(
      'leases',
      (sql) => sql`
        UPDATE events SET lease_until = now() + ${leaseMs} * interval '1 millisecond'
        WHERE seq = ANY(${seqs as number[]}) AND claimed_by = ${replica} AND forwarded_at IS NULL`,
    );
  }

  /**
   * Claims up to `limit` unfinished forwards whose lease has expired (their replica stopped or died),
   * skipping those another replica is claiming now.
   */
  async claimAbandoned(replica: string, leaseMs: number, limit: number): Promise<ClaimedForward[]> {
    const rows = await this.sql`
      UPDATE events SET claimed_by = ${replica}, lease_until = now() + ${leaseMs} * interval '1 millisecond'
      WHERE seq IN (
        SELECT seq FROM events WHERE ${this.sql.unsafe(FORWARD_UNFINISHED)} AND (lease_until IS NULL OR lease_until < now())
        ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING seq, event_id, type, resource_id, headers, body, forward_url`;
    return rows.map((row) => ({
      seq: Number(row.seq),
      eventId: row.event_id as string | null,
      type: row.type as string | null,
      resourceId: row.resource_id as string | null,
      headers: claimedHeaders(row.headers as string),
      body: row.body as Buffer,
      forwardUrl: row.forward_url as string,
    }));
  }

  async event(eventId: string): Promise<StoredEvent | undefined> {
    const [row] = await this.sql`SELECT * FROM events WHERE event_id = ${eventId} AND status = 'accepted'`;
    return row && toStoredEvent(row);
  }

  /** Newest first, unless the filter asks for the oldest. */
  async events(filter: EventFilter): Promise<StoredEvent[]> {
    const sql = this.sql;
    const conditions = [sql`true`];
    if (filter.types?.length) conditions.push(sql`type IN ${sql(filter.types as string[])}`);
    if (filter.status) conditions.push(sql`status = ${filter.status}`);
    if (filter.notForwarded) conditions.push(sql.unsafe(NOT_FORWARDED));
    if (filter.since !== undefined) conditions.push(sql`received_at >= ${filter.since}`);
    if (filter.until !== undefined) conditions.push(sql`received_at < ${filter.until}`);
    if (filter.afterSeq !== undefined) conditions.push(sql`seq > ${filter.afterSeq}`);
    const where = conditions.reduce((all, condition) => sql`${all} AND ${condition}`);
    const rows = await sql`SELECT * FROM events WHERE ${where} ORDER BY seq ${sql.unsafe(filter.oldestFirst ? 'ASC' : 'DESC')} LIMIT ${filter.limit}`;
    return rows.map(toStoredEvent);
  }

  /** As EventStore.prune, in chunks of their own transactions, so that the listeners are never kept waiting long. */
  async prune(before: number, options: { includeNotForwarded: boolean; dryRun: boolean }): Promise<PruneResult> {
    const sql = this.sql;
    const count = async (where: ReturnType<Sql['unsafe']>) =>
      Number((await sql`SELECT COUNT(*) AS n FROM events WHERE received_at < ${before} AND ${where}`)[0]!.n);
    const keptNotForwarded = options.includeNotForwarded ? 0 : await count(sql.unsafe(NOT_FORWARDED));
    const doomed = sql.unsafe(options.includeNotForwarded ? 'true' : `NOT (${NOT_FORWARDED})`);
    if (options.dryRun) return { deleted: await count(doomed), keptNotForwarded };
    let deleted = 0;
    for (;;) {
      const result = await sql`DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE received_at < ${before} AND ${doomed} LIMIT ${PRUNE_CHUNK})`;
      deleted += result.count;
      if (result.count === 0) return { deleted, keptNotForwarded };
    }
  }

  /** Unfinished forwards no replica holds a lease on. */
  async unfinishedForwards(): Promise<number> {
    const [row] = await this
      .sql`SELECT COUNT(*) AS n FROM events WHERE ${this.sql.unsafe(FORWARD_UNFINISHED)} AND (lease_until IS NULL OR lease_until < now())`;
    return Number(row!.n);
  }
}
