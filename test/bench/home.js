// What every benchmark starts from: a home directory of its own, and the environment that points
// svc's configuration, data and state into it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A new home under the temporary directory, and the environment of a user who lives there. */
export function benchHome(prefix = 'svc-bench-', extraEnv = {}) {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_STATE_HOME: join(home, 'state'),
    NO_COLOR: '1',
    ...extraEnv,
  };
  return { home, env };
}
