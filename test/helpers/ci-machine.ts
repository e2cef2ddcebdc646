/**
 * A CI machine as the tests of the CI recipes (test/ci/) stand one up: the machine's own Node (20,
 * too old for svc) first on PATH, a home of its own, none of this checkout's tools, and npm offline
 * with the machine's npm cache, which this checkout's npm ci filled: whatever the recipes install
 * comes from that cache, and no registry is asked for anything, svc least of all.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isolatedEnv } from './svc.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PINNED_NODE = join(ROOT, 'node_modules', 'node', 'bin', 'node');

/** The version of the Node the project pins (the `node` devDependency, which .node-version names). */
export const PINNED_NODE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'node_modules', 'node', 'package.json'), 'utf8')) as { version: string }).version;

export function ciMachineEnv(extra: Record<string, string> = {}): Record<string, string> {
  const npmCache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
  // npm's settings of an npm script that started the tests would reach the recipes' npm.
  const env = Object.fromEntries(Object.entries(isolatedEnv()).filter(([name]) => !/^npm_/i.test(name)));
  return {
    ...env,
    PATH: env
      .PATH!.split(':')
      .filter((directory) => !directory.includes('node_modules'))
      .join(':'),
    npm_config_cache: npmCache,
    npm_config_offline: 'true',
    CI: 'true',
    ...extra,
  };
}

/**
 * The pinned Node installed at `home` (`home/bin/node`), as a Node installation is: npm run by it
 * installs global packages into `home` (its global prefix is the directory above its node's), and
 * their commands into `home/bin`. Returns `home/bin`.
 */
export function installPinnedNode(home: string): string {
  const bin = join(home, 'bin');
  mkdirSync(bin, { recursive: true });
  const node = join(bin, 'node');
  if (!existsSync(node)) {
    // A hard link or a copy, not a symbolic link: npm finds its prefix from the real path of its node.
    try {
      linkSync(PINNED_NODE, node);
    } catch {
      copyFileSync(PINNED_NODE, node);
    }
  }
  return bin;
}
