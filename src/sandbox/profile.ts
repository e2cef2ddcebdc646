import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Paths } from '../config/paths.js';
import { DEFAULT_PROFILE, readConfig, SANDBOX_PROFILE, writeConfig } from '../config/config-file.js';
import { ConfigError } from '../core/errors.js';
import type { Sandbox } from './server.js';
import { SandboxStore } from './database.js';

export function defaultSandboxDir(paths: Paths): string {
  return join(paths.dataDir, 'sandbox');
}

/**
 * Writes the `sandbox` profile (base URL, test key, admin key, CA certificate), so any command works
 * against the sandbox with no set-up; it becomes the current profile when the user has none.
 */
export async function writeSandboxProfile(sandbox: Sandbox, configFile: string): Promise<void> {
  const keys = sandbox.store.sandboxKeys();
  const secretOf = (role: string) => keys.find((key) => key.role === role)?.secret ?? undefined;
  const config = await readConfig(configFile);
  config.profiles[SANDBOX_PROFILE] = {
    base_url: sandbox.url,
    api_key: secretOf('test'),
    admin_key: secretOf('admin'),
    ca_cert: sandbox.certPath,
  };
  if (!config.current_profile && !config.profiles[DEFAULT_PROFILE]) config.current_profile = SANDBOX_PROFILE;
  await writeConfig(config, configFile);
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
