import { resolve } from 'node:path';
import { describePostgres, isPostgresUrl, parsePostgresUrl, type PostgresLocation } from '../core/postgres-url.js';

/** The schema a PostgreSQL store uses when the connection string names none. */
const DEFAULT_POSTGRES_SCHEMA = 'svc_webhooks';

/** Where `svc webhooks …` keeps its events: a SQLite file (one receiver), or a PostgreSQL database (a fleet of them). */
export type StoreLocation = { kind: 'sqlite'; file: string } | PostgresLocation;

/**
 * Reads a store setting: a postgres:// or postgresql:// connection string (libpq's form; ?host=/dir for a
 * Unix socket, ?schema= for the schema, ?owner= for a role trusted to own it, ?sslmode=), or else the
 * path of a SQLite file.
 */
export function parseStoreLocation(value: string, source: string): StoreLocation {
  if (!isPostgresUrl(value)) return { kind: 'sqlite', file: resolve(value) };
  return parsePostgresUrl(value, source, DEFAULT_POSTGRES_SCHEMA);
}

/** The store as it may be shown: the file, or the connection string with its password left out. */
export function describeStore(location: StoreLocation): string {
  return location.kind === 'sqlite' ? location.file : describePostgres(location);
}
