import { ConfigError } from './errors.js';

/** A PostgreSQL database svc keeps shared state in (a fleet's events, rotations' journals), as its connection string names it. */
export interface PostgresLocation {
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
}

const POSTGRES_URL = /^postgres(?:ql)?:\/\//i;
/** An unquoted PostgreSQL identifier: no quoting, no case folding, no surprises in search_path. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const SSL_MODES = ['disable', 'prefer', 'require', 'verify-full'];
const KNOWN_PARAMETERS = new Set(['host', 'schema', 'owner', 'sslmode']);

export const isPostgresUrl = (value: string) => POSTGRES_URL.test(value);

/**
 * Reads a postgres:// or postgresql:// connection string (libpq's form; ?host=/dir for a Unix socket,
 * ?schema= for the schema, `defaultSchema` without it, ?owner= for a role trusted to own it, ?sslmode=).
 */
export function parsePostgresUrl(value: string, source: string, defaultSchema: string): PostgresLocation {
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
  const schema = url.searchParams.get('schema') ?? defaultSchema;
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

/** The connection string as it may be shown: its password left out. */
export function describePostgres(location: PostgresLocation): string {
  const url = new URL(location.url);
  const user = url.username ? `${url.username}${url.password ? ':…' : ''}@` : '';
  return `${url.protocol}//${user}${url.host}${url.pathname}${url.search}`;
}

/** What of a setting is secret when it is a connection string: the whole of it, and its password, raw and decoded; nothing otherwise. */
export function postgresSecrets(value: string): string[] {
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
