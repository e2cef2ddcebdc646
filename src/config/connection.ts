import { ConfigError } from '../core/errors.js';
import { parseBaseUrl } from '../api/base-url.js';
import type { KeyEnvironment } from '../core/redaction.js';
import { assertKey } from './keys.js';
import { pathsOf } from './paths.js';
import { currentProfileName, readConfig, type Profile } from './store.js';

export interface ConnectionInput {
  profile?: string;
  baseUrl?: string;
  caCert?: string;
  apiKey?: string;
  adminKey?: string;
}

interface ResolvedKey {
  value: string;
  source: string;
  environment: KeyEnvironment;
}

/** Where svc connects and with which credentials, each setting taken from flag, environment or profile. */
export interface Connection {
  profile: string;
  baseUrl: URL;
  caCertPath: string | undefined;
  apiKey: ResolvedKey | undefined;
  adminKey: ResolvedKey | undefined;
  /** The profile's own settings, for those a command reads itself (the upload shape). */
  settings: Profile;
}

type ConnectionSetting = 'base_url' | 'api_key' | 'admin_key' | 'ca_cert' | 'webhook_store';

const ENVIRONMENT_VARIABLES: Record<ConnectionSetting, string> = {
  base_url: 'SVC_BASE_URL',
  api_key: 'SVC_API_KEY',
  admin_key: 'SVC_ADMIN_KEY',
  ca_cert: 'SVC_CA_CERT',
  webhook_store: 'SVC_WEBHOOK_STORE',
};

const FLAGS: Record<ConnectionSetting, string> = {
  base_url: '--base-url',
  api_key: '--api-key',
  admin_key: '--admin-key',
  ca_cert: '--ca-cert',
  webhook_store: '--store',
};

export async function resolveConnection(input: ConnectionInput, env: NodeJS.ProcessEnv): Promise<Connection> {
  const config = await readConfig(pathsOf(env).configFile);
  const profileName = currentProfileName(config, input.profile, env);
  const profile: Profile = config.profiles[profileName] ?? {};
  if (input.profile !== undefined && !config.profiles[profileName]) {
    throw new ConfigError(
      'unknown_profile',
      `there is no profile named "${profileName}"`,
      `create it with \`svc config set base_url <url> --profile ${profileName}\`, or list profiles with \`svc config list\``,
    );
  }

  const pick = (name: ConnectionSetting, flagValue: string | undefined) => {
    if (flagValue !== undefined) return { value: flagValue, source: FLAGS[name] };
    const fromEnv = env[ENVIRONMENT_VARIABLES[name]];
    if (fromEnv) return { value: fromEnv, source: ENVIRONMENT_VARIABLES[name] };
    const fromProfile = profile[name];
    if (fromProfile) return { value: fromProfile, source: `profile "${profileName}"` };
    return undefined;
  };

  const baseUrl = pick('base_url', input.baseUrl);
  if (!baseUrl) {
    throw new ConfigError(
      'no_base_url',
      'no base URL is configured',
      'start the embedded sandbox with `svc sandbox start` (it writes the "sandbox" profile), or pass --base-url, set SVC_BASE_URL, or save one with `svc config set base_url <url>`',
    );
  }
  const key = (name: 'api_key' | 'admin_key', flagValue: string | undefined): ResolvedKey | undefined => {
    const picked = pick(name, flagValue);
    return picked && { ...picked, environment: assertKey(picked.value, name, picked.source) };
  };

  return {
    profile: profileName,
    baseUrl: parseBaseUrl(baseUrl.value, baseUrl.source),
    caCertPath: pick('ca_cert', input.caCert)?.value,
    apiKey: key('api_key', input.apiKey),
    adminKey: key('admin_key', input.adminKey),
    settings: profile,
  };
}

export function missingKeyError(role: 'api_key' | 'admin_key'): ConfigError {
  return role === 'api_key'
    ? new ConfigError('no_api_key', 'no API key is configured', 'set SVC_API_KEY, or save one with `svc config set api_key` (it reads the key from stdin)')
    : new ConfigError(
        'no_admin_key',
        'this command needs an admin key and none is configured',
        'set SVC_ADMIN_KEY, or save one with `svc config set admin_key` (it reads the key from stdin)',
      );
}
