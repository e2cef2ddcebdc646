/**
 * `./svc`, the way the README gives to run svc in a checkout: it runs bin/run.js on the Node the
 * checkout pins, whatever Node is on PATH, called directly or through a link on PATH.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, SVC_BIN } from '../helpers/svc.js';

const checkout = join(dirname(SVC_BIN), '..');
const pinned = spawnSync(join(checkout, 'node_modules', 'node', 'bin', 'node'), ['--version'], { encoding: 'utf8' }).stdout.trim();

describe('./svc in a checkout', () => {
  it('runs svc on the pinned Node, with only the system directories on PATH, directly and through a link', () => {
    const links = mkdtempSync(join(tmpdir(), 'svc-launcher-'));
    symlinkSync(join(checkout, 'svc'), join(links, 'svc'));
    const env = { ...isolatedEnv(), PATH: `${links}:/usr/local/bin:/usr/bin:/bin` };
    for (const command of [join(checkout, 'svc'), 'svc']) {
      const result = spawnSync(command, ['--version'], { env, cwd: tmpdir(), encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^svc/\\S+ linux-x64 node-${pinned.replace(/\./g, '\\.')} `));
    }
    const listed = spawnSync('svc', ['contract', 'list', '--json'], { env, encoding: 'utf8' });
    expect(listed.status, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).length).toBeGreaterThan(0);
  });

  it('says to run npm ci where the pinned Node is not installed', () => {
    const bare = mkdtempSync(join(tmpdir(), 'svc-bare-checkout-'));
    copyFileSync(join(checkout, 'svc'), join(bare, 'svc'));
    const result = spawnSync(join(bare, 'svc'), ['--version'], { env: isolatedEnv(), encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(`svc: run \`npm ci\` in ${bare} first: it installs the Node svc runs on, and builds svc\n`);
  });
});
