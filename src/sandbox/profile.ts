import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Paths } from '../config/paths.js';
import { DEFAULT_PROFILE, SANDBOX_PROFILE, updateConfig } from '../config/config-file.js';
import { ConfigError } from '../core/errors.js';
import type { Sandbox } from './server.js';
import { SandboxStore } from './database.js';

export function defaultSandboxDir(paths: Paths): string {
  return join(paths.dataDir, 'sandbox');
}

/** A directory as the system names it, links resolved, where it exists. */
function canonical(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

/**
 * The profile of the sandbox of `dataDir`: `sandbox` for the default directory, else one of its own
 * (`sandbox-<directory name>-<hash of its path>`, which `isSandboxProfile` knows), so that a second sandbox never repoints the
 * profile the users of the first one work with.
 */
export function sandboxProfileName(paths: Paths, dataDir: string): string {
  const dir = canonical(dataDir);
  if (dir === canonical(defaultSandboxDir(paths))) return SANDBOX_PROFILE;
  const name = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 32);
  const hash = createHash('sha256').update(dir).digest('hex').slice(0, 8);
  return `${SANDBOX_PROFILE}-${name ? `${name}-` : ''}${hash}`;
}

/**
 * Writes the sandbox's profile (base URL, test key, admin key, CA certificate, the secret its webhooks are
 * signed with; what else the user saved in it stays), so any command works against the sandbox with no set-up; it becomes the current profile
 * when the user has none. Returns its name.
 */
export async function writeSandboxProfile(sandbox: Sandbox, paths: Paths): Promise<string> {
  const keys = sandbox.store.sandboxKeys();
  const secretOf = (role: string) => keys.find((key) => key.role === role)?.secret ?? undefined;
  const profile = sandboxProfileName(paths, sandbox.dataDir);
  await updateConfig(paths.configFile, (config) => {
    config.profiles[profile] = {
      ...config.profiles[profile],
      base_url: sandbox.url,
      api_key: secretOf('test'),
      admin_key: secretOf('admin'),
      ca_cert: sandbox.certPath,
      webhook_secret: sandbox.webhookSecret,
    };
    if (!config.current_profile && !config.profiles[DEFAULT_PROFILE]) config.current_profile = profile;
    return { changed: true, result: undefined };
  });
  return profile;
}

/** Opens the store of a sandbox that has been started before in `dataDir`. */
export function openSandboxStore(dataDir: string): SandboxStore {
  if (!existsSync(join(dataDir, 'sandbox.db'))) {
    throw new ConfigError(
      'sandbox_not_started',
      `no sandbox has been started in ${dataDir}`,
      'start it with `svc sandbox start` (or pass the --data-dir it was started with)',
    );
  }
  return new SandboxStore(dataDir);
}
