import { homedir } from 'node:os';
import { join } from 'node:path';
import { xdgConfig, xdgData, xdgState } from 'xdg-basedir';

/** Where svc keeps its files; each honours its XDG variable so tests and scripts can isolate them. */
export const paths = {
  configDir: join(xdgConfig ?? join(homedir(), '.config'), 'svc'),
  dataDir: join(xdgData ?? join(homedir(), '.local', 'share'), 'svc'),
  stateDir: join(xdgState ?? join(homedir(), '.local', 'state'), 'svc'),
  get configFile(): string {
    return join(this.configDir, 'config.json');
  },
};
