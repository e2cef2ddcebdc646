import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where svc keeps its files. */
export interface Paths {
  configDir: string;
  dataDir: string;
  stateDir: string;
  configFile: string;
}

/**
 * svc's directories under the XDG base directories of `env` (a command's environment): each
 * variable when set, else its default under the home directory, so tests and scripts can isolate them.
 */
export function pathsOf(env: NodeJS.ProcessEnv): Paths {
  const home = env.HOME || homedir();
  const base = (variable: string, fallback: string[]) => env[variable] || join(home, ...fallback);
  const configDir = join(base('XDG_CONFIG_HOME', ['.config']), 'svc');
  return {
    configDir,
    dataDir: join(base('XDG_DATA_HOME', ['.local', 'share']), 'svc'),
    stateDir: join(base('XDG_STATE_HOME', ['.local', 'state']), 'svc'),
    configFile: join(configDir, 'config.json'),
  };
}
