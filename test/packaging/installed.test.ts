/**
 * svc as npm installs it outside a checkout: the package scripts/npm-package.js makes, installed
 * globally into a prefix of its own. What it holds and needs, and that it runs. (The CI recipes that install it so are
 * test/ci's.)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { HANG_MS } from '../helpers/hang.js';
import { isolatedEnv } from '../helpers/svc.js';

const root = new URL('../../', import.meta.url);
const pjson = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { name: string; version: string; dependencies: Record<string, string> };
const work = mkdtempSync(join(tmpdir(), 'svc-installed-'));
const prefix = join(work, 'prefix');
const installed = join(prefix, 'lib', 'node_modules', pjson.name);
let tarball = '';

/** Every package directory under node_modules, nested ones included. */
function packagesUnder(directory: string): string[] {
  const found: string[] = [];
  const visit = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((name) => join(entry, name)) : [entry];
      for (const name of names) {
        found.push(name);
        visit(join(modules, name, 'node_modules'));
      }
    }
  };
  visit(join(directory, 'node_modules'));
  return found;
}

beforeAll(() => {
  // The package as it is made (`npm pack` from the checkout refuses: test/packaging/registry-install.test.ts).
  tarball = execFileSync(process.execPath, [new URL('scripts/npm-package.js', root).pathname, work], { encoding: 'utf8' }).trim();
  // As a user installs it; the registry's packages come from npm's cache where it has them.
  execFileSync('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-fund', '--no-audit', '--loglevel', 'error', tarball], {
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 5 * HANG_MS,
  });
}, 6 * HANG_MS);

/** The user's PATH: the installed svc first, then the Node this test runs on (the pinned one). */
function userEnv(): Record<string, string> {
  const env = isolatedEnv();
  return { ...env, PATH: [join(prefix, 'bin'), dirname(process.execPath), env.PATH].join(':') };
}

describe('the npm package', () => {
  it('is named visa-report-svc, installs the command svc, and holds no source map', () => {
    expect(pjson.name).toBe('visa-report-svc');
    const listed = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
    expect(listed).toContain('package/bin/run.js');
    expect(listed).toContain('package/dist/cli/run.js');
    expect(listed.filter((path) => path.endsWith('.map'))).toEqual([]);
    expect(existsSync(join(prefix, 'bin', 'svc'))).toBe(true);
    expect(existsSync(join(prefix, 'bin', pjson.name))).toBe(false);
  });

  it('depends only on what the bundle leaves out: oclif’s plugins, Pact’s native core and unpdf', () => {
    expect(Object.keys(pjson.dependencies).sort()).toEqual(['@oclif/plugin-autocomplete', '@oclif/plugin-help', '@pact-foundation/pact-core', 'unpdf']);
    const packages = packagesUnder(installed);
    // Bundled into dist/ (Pact's JavaScript and what it needs too) and needed by no dependency (oclif's plugins bring @oclif/core, @inquirer/prompts and a few more of their own).
    for (const bundled of ['ajv', 'ajv-formats', 'busboy', 'cli-progress', 'selfsigned', 'write-file-atomic', 'yaml', '@pact-foundation/pact', 'express'])
      expect(packages).not.toContain(bundled);
    // Measured for the README's "Installing": 277 packages when all of the bundle's were dependencies.
    expect(packages.length).toBeLessThan(230);
  });

  it('runs from the install: --version, and the demo', { timeout: 4 * HANG_MS }, () => {
    const env = userEnv();
    expect(execFileSync('svc', ['--version'], { env, encoding: 'utf8' })).toMatch(new RegExp(`^svc/${pjson.version.replace(/\./g, '\\.')} `));
    const demo = spawnSync('svc', ['demo'], { env, encoding: 'utf8', timeout: 2 * HANG_MS });
    expect(demo.status, demo.stderr).toBe(0);
    expect(demo.stdout).toContain('risk score');
  });
});
