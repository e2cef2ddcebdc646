import { ConfigError } from '../core/errors.js';
import { withFileLock } from '../core/file-lock.js';
import { readSecretFile, writeSecretFile } from '../core/secret-file.js';

/** The settings a profile may hold. Secret ones are never printed in full. */
export const SETTINGS = {
  base_url: { secret: false, description: 'Base URL of the API, e.g. https://api.example.com' },
  api_key: { secret: true, description: 'API key (svc_live_… or svc_test_…)' },
  admin_key: { secret: true, description: 'Admin key for key management (svc_admin_…)' },
  ca_cert: { secret: false, description: "Path of a PEM CA certificate to trust beside the system's (private deployments, the sandbox)" },
  ca_cert_only: { secret: false, description: 'true to trust ca_cert alone, not the system store' },
  client_cert: { secret: false, description: 'Path of a PEM client certificate, for a gateway that asks for one (mutual TLS)' },
  client_key: { secret: false, description: 'Path of the PEM private key of client_cert (mode 0600)' },
  upload_encoding: {
    secret: false,
    description: 'How `documents upload` sends the file: multipart, json (base64 in a JSON body) or raw (the file as the body); default multipart',
  },
  upload_file_field: { secret: false, description: 'Name of the file part (multipart) or of the base64 field (json); default file' },
  upload_type_field: { secret: false, description: 'Name of the field of the document kind; default type' },
  upload_applicant_field: { secret: false, description: 'Name of the field of the applicant id; default applicant_id' },
  upload_fields: { secret: false, description: 'Fields sent with every upload, as a JSON object of strings, e.g. {"channel": "ops"}' },
  upload_query: {
    secret: false,
    description: 'Query parameters sent with every upload, as a JSON object of strings, e.g. {"type": "{{type}}", "applicant_id": "{{applicant_id}}"}',
  },
  upload_headers: { secret: false, description: 'Headers sent with every upload, as a JSON object of strings, e.g. {"x-channel": "ops"}' },
  webhook_store: { secret: true, description: 'Store of `svc webhooks`: a SQLite file, or a postgres:// connection string shared by a fleet of listeners' },
  rotation_store: {
    secret: true,
    description:
      'Store of `svc keys rotate`: a postgres:// connection string every runner shares, for the journals and the per-key locks (default: the state directory)',
  },
  webhook_secret: { secret: true, description: 'The secret the service signs webhooks with, for `svc webhooks` and `contract verify` (SVC_WEBHOOK_SECRET)' },
  read_only_key: { secret: true, description: 'A read-only key of the same workspace, for `contract verify`' },
  ip_locked_key: { secret: true, description: "A key locked to addresses other than this machine's, for `contract verify`" },
  other_workspace_key: { secret: true, description: 'A key of another workspace, for the isolation checks of `contract verify`' },
  other_workspace_admin_key: { secret: true, description: 'The admin key of that other workspace, for `contract verify`' },
  revocable_key_id: { secret: false, description: 'Id (key_…) of a key `contract verify` may revoke, made in the dashboard' },
  revocable_key: { secret: true, description: 'The secret of the key of revocable_key_id' },
  rate_limit_key: { secret: true, description: 'A key of a workspace no one else uses, for the 429 `contract verify` provokes' },
} as const;

export type SettingName = keyof typeof SETTINGS;
export type Profile = Partial<Record<SettingName, string>>;

export interface ConfigFile {
  current_profile?: string;
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';
/** The profile `svc sandbox start` writes for the sandbox of the default data directory: its base URL, keys and certificate. */
export const SANDBOX_PROFILE = 'sandbox';

/** Whether `name` is the profile of a sandbox: `sandbox`, or that of another data directory (`sandbox-<name>-<hash>`). */
export function isSandboxProfile(name: string | undefined): boolean {
  return name === SANDBOX_PROFILE || /^sandbox-(?:[a-z0-9-]+-)?[0-9a-f]{8}$/.test(name ?? '');
}
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function isSettingName(name: string): name is SettingName {
  return Object.hasOwn(SETTINGS, name);
}

export function assertProfileName(name: string): void {
  if (!PROFILE_NAME.test(name)) {
    throw new ConfigError(
      'invalid_profile_name',
      `"${name}" is not a valid profile name`,
      'use letters, digits, ".", "_" and "-" (at most 64 characters, starting with a letter or digit)',
    );
  }
}

export async function readConfig(file: string): Promise<ConfigFile> {
  const text = await readSecretFile(file);
  if (text === undefined) return { profiles: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      'config_unreadable',
      `${file} is not valid JSON (${(error as Error).message})`,
      'fix the file by hand, or move it away to start afresh; svc will not overwrite it',
    );
  }
  if (!isConfigFile(parsed)) {
    throw new ConfigError(
      'config_unreadable',
      `${file} does not have the shape svc writes ({ "profiles": { "<name>": { … } } })`,
      'fix the file by hand, or move it away to start afresh; svc will not overwrite it',
    );
  }
  return parsed;
}

async function writeConfig(config: ConfigFile, file: string): Promise<void> {
  await writeSecretFile(file, `${JSON.stringify(config, null, 2)}\n`);
}

/** How long a change of the config file waits for another process's change to it. */
const CONFIG_LOCK_WAIT_MS = 5_000;

/**
 * Reads the config `file`, lets `change` alter it, and writes it back (0600, atomically) when
 * `change` says it changed something: the one read-modify-write of `config set`, `unset`, `use` and
 * `sandbox start`, under a lock, so that processes changing it at once lose none of each other's changes.
 */
export function updateConfig<T>(file: string, change: (config: ConfigFile) => { changed: boolean; result: T }): Promise<T> {
  return withFileLock(`${file}.lock`, CONFIG_LOCK_WAIT_MS, async () => {
    const config = await readConfig(file);
    const { changed, result } = change(config);
    if (changed) await writeConfig(config, file);
    return result;
  });
}

/** The profile a run uses: `--profile`, else SVC_PROFILE of `env` (the command's), else the current one. */
export function currentProfileName(config: ConfigFile, requested: string | undefined, env: NodeJS.ProcessEnv): string {
  const name = requested ?? env.SVC_PROFILE ?? config.current_profile ?? DEFAULT_PROFILE;
  assertProfileName(name);
  return name;
}

function isConfigFile(value: unknown): value is ConfigFile {
  if (typeof value !== 'object' || value === null) return false;
  const { profiles, current_profile: current } = value as Record<string, unknown>;
  if (current !== undefined && typeof current !== 'string') return false;
  if (typeof profiles !== 'object' || profiles === null) return false;
  return Object.values(profiles).every(
    (profile) =>
      typeof profile === 'object' &&
      profile !== null &&
      Object.entries(profile as Record<string, unknown>).every(([key, setting]) => isSettingName(key) && typeof setting === 'string'),
  );
}
