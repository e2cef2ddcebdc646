import { ConfigError, SvcError } from '../core/errors.js';
import { KEY_PREFIXES, type KeyEnvironment, keyEnvironment, redactKey } from '../core/redaction.js';
import { postgresSecrets } from '../core/postgres-url.js';

/** The variables svc and its kit read keys and webhook secrets from, and the one the deploy command of `keys rotate` is given. */
const SECRET_VARIABLES = [
  'SVC_API_KEY',
  'SVC_ADMIN_KEY',
  'SVC_NEW_API_KEY',
  'SVC_READ_ONLY_KEY',
  'SVC_IP_LOCKED_KEY',
  'SVC_OTHER_WORKSPACE_KEY',
  'SVC_OTHER_WORKSPACE_ADMIN_KEY',
  'SVC_REVOCABLE_KEY',
  'SVC_WEBHOOK_SECRET',
];

/** The variables that may hold a PostgreSQL connection string, a secret. */
const STORE_VARIABLES = ['SVC_WEBHOOK_STORE', 'SVC_ROTATION_STORE'];

/**
 * The secrets an environment holds (SVC_WEBHOOK_SECRET may hold several, separated by commas; SVC_WEBHOOK_STORE
 * and SVC_ROTATION_STORE a PostgreSQL connection string): a run redacts them from its start.
 */
export function environmentSecrets(env: NodeJS.ProcessEnv): string[] {
  return [...SECRET_VARIABLES.flatMap((name) => env[name]?.split(/ *, */) ?? []), ...STORE_VARIABLES.flatMap((name) => postgresSecrets(env[name] ?? ''))];
}

/**
 * Checks that a key has the prefix its role needs. The API key may be of any known environment
 * (the admin key is the root credential); the admin key must be an admin key.
 */
export function assertKey(key: string, role: 'api_key' | 'admin_key', source: string): KeyEnvironment {
  const trimmed = key.trim();
  if (trimmed !== key || /\s/.test(key)) {
    throw new ConfigError(
      'key_whitespace',
      `the ${role} from ${source} contains white space`,
      'remove the spaces or line breaks around the key; a key is one unbroken token',
    );
  }
  const environment = keyEnvironment(key);
  if (!environment) {
    throw new ConfigError(
      'unknown_key_prefix',
      `the ${role} from ${source} (${redactKey(key)}) has no known prefix`,
      `keys start with ${Object.values(KEY_PREFIXES).join(', ')}; copy the whole key from the dashboard`,
    );
  }
  if (role === 'admin_key' && environment !== 'admin') {
    // The README's table: not an admin key is a permission failure (4), as the service's 403 would be.
    throw new SvcError(
      'permission',
      'not_an_admin_key',
      `the admin_key from ${source} (${redactKey(key)}) is a ${environment} key`,
      `key management needs an admin key (${KEY_PREFIXES.admin}…): set SVC_ADMIN_KEY or \`svc config set admin_key\``,
    );
  }
  return environment;
}
