import { resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';

/** The schema a PostgreSQL store uses when the connection string names none. */
const DEFAULT_POSTGRES_SCHEMA = 'svc_webhooks';

/** Where `svc webhooks …` keeps its events: a SQLite file (one receiver), or a PostgreSQL database (a fleet of them). */
export type StoreLocation =
  | { kind: 'sqlite'; file: string }
  | {
      kind: 'postgres';
      /** The connection string as given: a secret. */
      url: string;
      host: string;
      /** The directory of the server's Unix socket, when it is reached that way (?host=/path). */
      socketDirectory: string | undefined;
      port: number;
      database: string;
      user: string | undefined;
      password: string | undefined;
      schema: string;
      /** A role trusted to own the schema and its tables besides the one svc connects as (and those it is a member of). */
      owner: string | undefined;
      sslmode: string | undefined;
    };

const POSTGRES_URL = /^postgres(?:ql)?:\/\//i;
/** An unquoted PostgreSQL identifier: no quoting, no case folding, no surprises in search_path. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const SSL_MODES = ['disable', 'prefer', 'require', 'verify-full'];
const KNOWN_PARAMETERS = new Set(['host', 'schema', 'owner', 'sslmode']);

const isPostgresUrl = (value: string) => POSTGRES_URL.test(value);

/**
 * Reads a store setting: a postgres:// or postgresql:// connection string (libpq's form; ?host=/dir for a
 * Unix socket, ?schema= for the schema, ?owner= for a role trusted to own it, ?sslmode=), or else the
 * path of a SQLite file.
 */
export function parseStoreLocation(value: string, source: string): StoreLocation {
  if (!isPostgresUrl(value)) return { kind: 'sqlite', file: resolve(value) };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      'invalid_store',
      `the PostgreSQL connection string from ${source} is not a URL`,
      'give postgres://USER:PASSWORD@HOST:PORT/DATABASE (percent-encode special characters of the password)',
    );
  }
  for (const name of url.searchParams.keys()) {
    if (!KNOWN_PARAMETERS.has(name)) {
      throw new ConfigError(
        'invalid_store',
        `the PostgreSQL connection string from ${source} has a parameter svc does not take: ${name}`,
        'svc takes ?host=/socket/directory, ?schema=NAME, ?owner=ROLE and ?sslmode=disable|prefer|require|verify-full',
      );
    }
  }
  const schema = url.searchParams.get('schema') ?? DEFAULT_POSTGRES_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) {
    throw new ConfigError(
      'invalid_store',
      `the schema "${schema}" from ${source} is not a plain PostgreSQL name`,
      'use lower-case letters, digits and _ (at most 63, not starting with a digit)',
    );
  }
  const owner = url.searchParams.get('owner') ?? undefined;
  if (owner !== undefined && !SCHEMA_NAME.test(owner)) {
    throw new ConfigError(
      'invalid_store',
      `the owner "${owner}" from ${source} is not a plain PostgreSQL name`,
      'name the role as PostgreSQL lists it, in lower case',
    );
  }
  const sslmode = url.searchParams.get('sslmode') ?? undefined;
  if (sslmode !== undefined && !SSL_MODES.includes(sslmode)) {
    throw new ConfigError('invalid_store', `sslmode=${sslmode} from ${source} is not one svc takes`, `use one of ${SSL_MODES.join(', ')}`);
  }
  const socketDirectory = url.searchParams.get('host') ?? undefined;
  const database = decodeURIComponent(url.pathname.slice(1));
  if (!database) {
    throw new ConfigError('invalid_store', `the PostgreSQL connection string from ${source} names no database`, 'end it with /DATABASE');
  }
  return {
    kind: 'postgres',
    url: value,
    host: url.hostname ? decodeURIComponent(url.hostname) : 'localhost',
    socketDirectory,
    port: url.port ? Number(url.port) : 5432,
    database,
    user: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    schema,
    owner,
    sslmode,
  };
}

/** The store as it may be shown: the file, or the connection string with its password left out. */
export function describeStore(location: StoreLocation): string {
  if (location.kind === 'sqlite') return location.file;
  const url = new URL(location.url);
  const user = url.username ? `${url.username}${url.password ? ':…' : ''}@` : '';
  return `${url.protocol}//${user}${url.host}${url.pathname}${url.search}`;
}

/** What of a store setting is secret (the whole connection string, and its password, raw and decoded); nothing of a file path. */
export function storeSecrets(value: string): string[] {
  if (!isPostgresUrl(value)) return [];
  const secrets = [value];
  try {
    const { password } = new URL(value);
    if (password) secrets.push(password, decodeURIComponent(password));
  } catch {
    // Not a URL: the whole string is all there is to hide.
  }
  return secrets;
}
