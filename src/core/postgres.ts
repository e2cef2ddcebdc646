import postgres, { type Sql, type TransactionSql } from 'postgres';
import { SvcError } from './errors.js';
import type { PostgresLocation } from './postgres-url.js';

export interface ConnectOptions {
  /** What the server shows of this client (pg_stat_activity): at most 63 bytes. */
  applicationName: string;
  connections?: number;
  /** Seconds to wait for a connection before its query fails. */
  connectTimeoutS: number;
  /** Server settings of each connection (statement_timeout, keepalives…). */
  settings?: Record<string, string | number>;
  /** Seconds between the client's TCP keepalives (postgres.js's default: 60). */
  keepAliveS?: number;
  /** One session kept for the whole run, never closed for being idle or old: it holds session-level locks. */
  session?: boolean;
}

/** A pool of connections to the database `location` names, in its schema. */
export function connectPostgres(location: PostgresLocation, options: ConnectOptions): Sql {
  return postgres({
    host: location.socketDirectory ?? location.host,
    port: location.port,
    database: location.database,
    username: location.user,
    password: location.password,
    ssl: location.sslmode === undefined || location.sslmode === 'disable' ? false : (location.sslmode as 'prefer' | 'require' | 'verify-full'),
    max: options.connections ?? 4,
    connect_timeout: options.connectTimeoutS,
    ...(options.session ? { idle_timeout: undefined, max_lifetime: null } : { idle_timeout: 60 }),
    ...(options.keepAliveS !== undefined && { keep_alive: options.keepAliveS }),
    onnotice: () => undefined,
    connection: { application_name: options.applicationName, search_path: location.schema, ...options.settings },
  });
}

/** A schema svc owns and migrates: its tables, the table that holds its version, and the steps that build it. */
export interface OwnSchema {
  /** Names the advisory lock its migration holds: `svc <name> <schema>`. */
  name: string;
  /** What the schema stores, in words: "event store", "rotation store". */
  what: string;
  /** Who else uses the schema, in the advice to upgrade: "the other replicas". */
  others: string;
  /** What a role that owned it could do, for the refusal of a schema owned by another. */
  risk: string;
  versionTable: string;
  tables: readonly string[];
  /** Each step takes the schema from the version before it; the version is their count. */
  migrations: readonly string[];
}

async function versionOf(sql: Sql | TransactionSql, location: PostgresLocation, schema: OwnSchema): Promise<number> {
  const [table] = await sql`SELECT to_regclass(${`${location.schema}.${schema.versionTable}`}) IS NOT NULL AS present`;
  if (!table!.present) return 0;
  const [row] = await sql`SELECT version FROM ${sql(schema.versionTable)}`;
  return row ? Number(row.version) : 0;
}

function refuseNewer(version: number, location: PostgresLocation, schema: OwnSchema): void {
  const known = schema.migrations.length;
  if (version > known) {
    throw new SvcError(
      'config',
      'store_schema_newer',
      `the ${schema.what}'s schema ${location.schema} is at version ${version}, newer than this svc knows (${known}): a newer svc migrated it`,
      `upgrade svc to the version ${schema.others} run; an older svc never writes to a newer schema`,
    );
  }
}

/**
 * Refuses a schema, or a table of it, that another role owns: that role could read and write what svc
 * keeps there. Owned means by the role svc connects as, a role it is a member of, or the role the
 * connection string names trusted (?owner=).
 */
async function assertOwned(sql: Sql | TransactionSql, location: PostgresLocation, schema: OwnSchema): Promise<void> {
  const { schema: name, owner: trusted } = location;
  const tables = [...schema.tables, schema.versionTable];
  const foreign = await sql`
    SELECT kind, name, owner FROM (
      SELECT 'schema' AS kind, n.nspname AS name, n.nspowner AS owner_id FROM pg_namespace n WHERE n.nspname = ${name}
      UNION ALL
      SELECT 'table', c.relname, c.relowner FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ${name} AND c.relname IN ${sql(tables)}
    ) owned, LATERAL (SELECT pg_get_userbyid(owner_id) AS owner) named
    WHERE NOT pg_has_role(current_user, owner_id, 'USAGE') AND owner IS DISTINCT FROM ${trusted ?? null}`;
  if (foreign.length === 0) return;
  const [first] = foreign;
  throw new SvcError(
    'config',
    'store_not_owned',
    `the ${first!.kind} ${first!.kind === 'schema' ? name : `${name}.${first!.name}`} is owned by the role ${first!.owner}, which is not the role svc connects as: ${schema.risk}`,
    `give svc a schema of its own (?schema=), have svc's role own it (ALTER SCHEMA ${name} OWNER TO …), or, if ${first!.owner} is yours, say so with ?owner=${first!.owner} in the connection string`,
  );
}

/**
 * Brings `schema` to its latest version, one process at a time (an advisory lock); nothing to do, and no
 * DDL grant needed, when it is there. A schema of a newer svc, or owned by another role, is refused.
 */
export async function migrateSchema(sql: Sql, location: PostgresLocation, schema: OwnSchema): Promise<void> {
  await assertOwned(sql, location, schema);
  const current = await versionOf(sql, location, schema);
  refuseNewer(current, location, schema);
  if (current === schema.migrations.length) return;
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext(${`svc ${schema.name} ${location.schema}`}))`;
    await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS ${location.schema}`);
    // Another role may have made the schema since the check: refused here, nothing of the migration is committed.
    await assertOwned(tx, location, schema);
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS ${schema.versionTable} (one integer PRIMARY KEY CHECK (one = 1), version integer NOT NULL)`);
    const locked = await versionOf(tx, location, schema);
    refuseNewer(locked, location, schema);
    for (let version = locked; version < schema.migrations.length; version++) await tx.unsafe(schema.migrations[version]!);
    await tx`INSERT INTO ${tx(schema.versionTable)} VALUES (1, ${schema.migrations.length}) ON CONFLICT (one) DO UPDATE SET version = EXCLUDED.version`;
  });
}
