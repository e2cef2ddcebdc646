import { ConfigError } from '../core/errors.js';
import { parseBaseUrl } from '../api/base-url.js';
import type { GivenFile, TrustOptions } from '../api/trust.js';
import type { KeyEnvironment } from '../core/redaction.js';
import { assertKey } from './credentials.js';
import { pathsOf } from './paths.js';
import { type ConfigFile, currentProfileName, isSandboxProfile, readConfig, type Profile } from './config-file.js';

export interface ConnectionInput {
  profile?: string | undefined;
  baseUrl?: string | undefined;
  caCert?: string | undefined;
  caCertOnly?: boolean | undefined;
  clientCert?: string | undefined;
  clientKey?: string | undefined;
  apiKey?: string | undefined;
  adminKey?: string | undefined;
  /** Any certificate accepted (the kit's --insecure): no CA is read, and none is trusted alone. */
  insecure?: boolean | undefined;
}

/** The connection flags of a command, by the names every command gives them (src/flags/connection.ts, the kit's). */
interface ConnectionFlags {
  profile?: string | undefined;
  'base-url'?: string | undefined;
  'ca-cert'?: string | undefined;
  'ca-cert-only'?: boolean | undefined;
  'client-cert'?: string | undefined;
  'client-key'?: string | undefined;
  'api-key'?: string | undefined;
  insecure?: boolean | undefined;
}

/** What a command's flags say of its connection: each of them, so that none is left behind. */
export function connectionInput(flags: ConnectionFlags): ConnectionInput {
  return {
    profile: flags.profile,
    baseUrl: flags['base-url'],
    caCert: flags['ca-cert'],
    caCertOnly: flags['ca-cert-only'],
    clientCert: flags['client-cert'],
    clientKey: flags['client-key'],
    apiKey: flags['api-key'],
    insecure: flags.insecure,
  };
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
  caCert: GivenFile | undefined;
  caCertOnly: boolean;
  clientCert: GivenFile | undefined;
  clientKey: GivenFile | undefined;
  insecure: boolean;
  apiKey: ResolvedKey | undefined;
  adminKey: ResolvedKey | undefined;
  /** The profile's own settings, for those a command reads itself (the upload shape): those of the profile bound to the base URL. */
  settings: Profile;
  /** The profile whose base URL this is, whose credentials are used; none for a base URL no profile has. */
  boundProfile: string | undefined;
  /** A profile whose credentials were not used because its base URL is not this one. */
  withheld: { profile: string; baseUrl: string } | undefined;
}

/** The settings that belong to a base URL: sent only to it. */
type BoundSetting = 'api_key' | 'admin_key' | 'ca_cert' | 'ca_cert_only' | 'client_cert' | 'client_key';
type ConnectionSetting = 'base_url' | BoundSetting;

const ENVIRONMENT_VARIABLES: Record<ConnectionSetting, string> = {
  base_url: 'SVC_BASE_URL',
  api_key: 'SVC_API_KEY',
  admin_key: 'SVC_ADMIN_KEY',
  ca_cert: 'SVC_CA_CERT',
  ca_cert_only: 'SVC_CA_CERT_ONLY',
  client_cert: 'SVC_CLIENT_CERT',
  client_key: 'SVC_CLIENT_KEY',
};

const FLAGS: Record<ConnectionSetting, string> = {
  base_url: '--base-url',
  api_key: '--api-key',
  admin_key: '--admin-key',
  ca_cert: '--ca-cert',
  ca_cert_only: '--ca-cert-only',
  client_cert: '--client-cert',
  client_key: '--client-key',
};

function sameBaseUrl(value: string | undefined, url: URL): boolean {
  if (!value) return false;
  try {
    return parseBaseUrl(value, 'a profile').href.replace(/\/$/, '') === url.href.replace(/\/$/, '');
  } catch {
    return false;
  }
}

/**
 * The profile whose credentials go with a base URL given by flag or environment: the selected
 * profile if its base URL is that one or it has none (its settings are bound to no host), else the
 * first profile that has it, else none.
 */
function profileOfBaseUrl(config: ConfigFile, selected: string, url: URL): string | undefined {
  const own = config.profiles[selected]?.base_url;
  if (own === undefined || sameBaseUrl(own, url)) return selected;
  return Object.keys(config.profiles).find((name) => sameBaseUrl(config.profiles[name]?.base_url, url));
}

function isTrue(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes)$/i.test(value.trim());
}

/** The profile a run uses (currentProfileName): one that --profile or SVC_PROFILE names must exist. */
function existingProfileName(config: ConfigFile, requested: string | undefined, env: NodeJS.ProcessEnv): string {
  const profileName = currentProfileName(config, requested, env);
  const named = requested !== undefined ? '--profile' : env.SVC_PROFILE ? 'SVC_PROFILE' : undefined;
  if (named && !config.profiles[profileName]) {
    const existing = Object.keys(config.profiles);
    throw new ConfigError(
      'unknown_profile',
      `there is no profile named "${profileName}" (from ${named}); ${existing.length > 0 ? `the profiles are ${existing.map((name) => `"${name}"`).join(', ')}` : 'no profile is saved'}`,
      `pick one of them, or create it with \`svc config set base_url <url> --profile ${profileName}\``,
    );
  }
  return profileName;
}

/**
 * Resolves the connection: each setting from its flag, else its SVC_ variable, else the profile.
 * A key, CA or client certificate of a profile belongs to that profile's base URL: with a base URL
 * given by flag or environment, only a profile of that same URL lends them (as gh binds a token to
 * its host), so a key is never sent to a host it was not configured for.
 */
export async function resolveConnection(input: ConnectionInput, env: NodeJS.ProcessEnv): Promise<Connection> {
  const config = await readConfig(pathsOf(env).configFile);
  const profileName = existingProfileName(config, input.profile, env);
  const selected: Profile = config.profiles[profileName] ?? {};

  const given = (name: ConnectionSetting, flagValue: string | undefined) => {
    if (flagValue !== undefined) return { value: flagValue, source: FLAGS[name] };
    const fromEnv = env[ENVIRONMENT_VARIABLES[name]];
    if (fromEnv) return { value: fromEnv, source: ENVIRONMENT_VARIABLES[name] };
    return undefined;
  };

  const baseUrlGiven = given('base_url', input.baseUrl);
  const baseUrlSetting = baseUrlGiven ?? (selected.base_url ? { value: selected.base_url, source: `profile "${profileName}"` } : undefined);
  if (!baseUrlSetting) {
    throw new ConfigError(
      'no_base_url',
      'no base URL is configured',
      'start the embedded sandbox with `svc sandbox start` (it writes the "sandbox" profile), or pass --base-url, set SVC_BASE_URL, or save one with `svc config set base_url <url>`',
    );
  }
  const baseUrl = parseBaseUrl(baseUrlSetting.value, baseUrlSetting.source);
  const boundName = baseUrlGiven ? profileOfBaseUrl(config, profileName, baseUrl) : profileName;
  const bound: Profile = boundName === undefined ? {} : (config.profiles[boundName] ?? {});

  const pick = (name: BoundSetting, flagValue: string | undefined) => {
    const fromFlagOrEnv = given(name, flagValue);
    if (fromFlagOrEnv) return fromFlagOrEnv;
    const fromProfile = bound[name];
    return fromProfile ? { value: fromProfile, source: `profile "${boundName}"` } : undefined;
  };
  const key = (name: 'api_key' | 'admin_key', flagValue: string | undefined): ResolvedKey | undefined => {
    const picked = pick(name, flagValue);
    return picked && { ...picked, environment: assertKey(picked.value, name, picked.source) };
  };
  const file = (name: 'ca_cert' | 'client_cert' | 'client_key', flagValue: string | undefined): GivenFile | undefined => {
    const picked = pick(name, flagValue);
    return picked && { path: picked.value, source: picked.source };
  };
  const lends = Object.keys(selected).some((name) => name !== 'base_url');
  const withheld = boundName !== profileName && lends && selected.base_url ? { profile: profileName, baseUrl: selected.base_url } : undefined;

  return {
    profile: profileName,
    baseUrl,
    caCert: file('ca_cert', input.caCert),
    caCertOnly: input.caCertOnly === true || isTrue(pick('ca_cert_only', undefined)?.value),
    clientCert: file('client_cert', input.clientCert),
    clientKey: file('client_key', input.clientKey),
    insecure: input.insecure === true,
    apiKey: key('api_key', input.apiKey),
    adminKey: key('admin_key', input.adminKey),
    settings: bound,
    boundProfile: boundName,
    withheld,
  };
}

/**
 * Whom a connection's TLS trusts and what it presents: the one place a command's network is made
 * from its connection (SvcCommand.connectionNetwork), so that no command drops a setting of it.
 */
export function connectionTrust(connection: Connection): Omit<TrustOptions, 'env'> {
  const { insecure, caCert, caCertOnly, clientCert, clientKey } = connection;
  return {
    sandbox: isSandboxProfile(connection.boundProfile),
    ...(insecure ? { insecure } : { caCert, caCertOnly }),
    clientCert,
    clientKey,
  };
}

export function missingKeyError(role: 'api_key' | 'admin_key', connection: Connection): ConfigError {
  const variable = role === 'api_key' ? 'SVC_API_KEY' : 'SVC_ADMIN_KEY';
  if (connection.withheld) {
    const { profile, baseUrl } = connection.withheld;
    return new ConfigError(
      role === 'api_key' ? 'no_api_key' : 'no_admin_key',
      `no ${role === 'api_key' ? 'API' : 'admin'} key for ${connection.baseUrl.href}: the keys of profile "${profile}" belong to ${baseUrl}, and svc sends a key only to the base URL it was configured for`,
      `set ${variable} beside the base URL, or save a profile for it: \`svc config set base_url ${connection.baseUrl.href} --profile <name>\`, then \`svc config set ${role} --profile <name>\` (it reads the key from stdin)`,
    );
  }
  return role === 'api_key'
    ? new ConfigError('no_api_key', 'no API key is configured', 'set SVC_API_KEY, or save one with `svc config set api_key` (it reads the key from stdin)')
    : new ConfigError(
        'no_admin_key',
        'this command needs an admin key and none is configured',
        'set SVC_ADMIN_KEY, or save one with `svc config set admin_key` (it reads the key from stdin)',
      );
}
