import { ConfigError } from '../core/errors.js';
import { isPostgresUrl, parsePostgresUrl, type PostgresLocation } from '../core/postgres-url.js';

/** The schema the rotation store uses when the connection string names none. */
const DEFAULT_ROTATION_SCHEMA = 'svc_rotations';

/**
 * Reads the rotation store setting: the connection string of the PostgreSQL database that every runner
 * rotating keys shares (the journals and the per-key locks). Without it, they are kept in the state
 * directory of the machine that runs svc.
 */
export function parseRotationStore(value: string, source: string): PostgresLocation {
  if (!isPostgresUrl(value)) {
    throw new ConfigError(
      'invalid_store',
      `the rotation store from ${source} is not a postgres:// connection string`,
      'give postgres://USER:PASSWORD@HOST:PORT/DATABASE, which every runner shares; without a rotation store, the journals are kept in $XDG_STATE_HOME/svc/rotations',
    );
  }
  return parsePostgresUrl(value, source, DEFAULT_ROTATION_SCHEMA);
}
