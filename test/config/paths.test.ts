/**
 * Where svc keeps its files, read from the environment it is given (a command's), never the
 * process's: fixed known answers for the XDG variables and their defaults under HOME.
 */
import { describe, expect, it } from 'vitest';
import { pathsOf } from '../../src/config/paths.js';

describe('pathsOf', () => {
  it("puts svc's directories under HOME's defaults when no XDG variable is set", () => {
    expect(pathsOf({ HOME: '/home/ops' })).toEqual({
      configDir: '/home/ops/.config/svc',
      dataDir: '/home/ops/.local/share/svc',
      stateDir: '/home/ops/.local/state/svc',
      configFile: '/home/ops/.config/svc/config.json',
    });
  });

  it('takes each XDG variable of the environment it is given, and the default of one left empty', () => {
    expect(pathsOf({ HOME: '/home/ops', XDG_CONFIG_HOME: '/etc/xdg', XDG_DATA_HOME: '', XDG_STATE_HOME: '/var/lib/ci/state' })).toEqual({
      configDir: '/etc/xdg/svc',
      dataDir: '/home/ops/.local/share/svc',
      stateDir: '/var/lib/ci/state/svc',
      configFile: '/etc/xdg/svc/config.json',
    });
  });
});
