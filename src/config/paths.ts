import { homedir } from 'node:os';
import { join } from 'node:path';

/** An XDG base directory: its variable when set, else its default under the home directory. */
function xdgDirectory(variable: string, fallback: string[]): string {
  return process.env[variable] || join(homedir(), ...fallback);
}

/**
 * Where svc keeps its files; each honours its XDG variable so tests and scripts can isolate them.
 * Read when used, not when loaded: a run in a test process sees the environment it is given.
 */
export const paths = {
  get configDir(): string {
    return join(xdgDirectory('XDG_CONFIG_HOME', ['.config']), 'svc');
  },
  get dataDir(): string {
    return join(xdgDirectory('XDG_DATA_HOME', ['.local', 'share']), 'svc');
  },
  get stateDir(): string {
    return join(xdgDirectory('XDG_STATE_HOME', ['.local', 'state']), 'svc');
  },
  get configFile(): string {
    return join(this.configDir, 'config.json');
  },
};
