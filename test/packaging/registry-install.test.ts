/**
 * svc installed as a user installs it, `npm install --global visa-report-svc`, from a registry on
 * 127.0.0.1 that holds the package scripts/npm-package.js makes and, from npm's cache, exactly the
 * packages of its shrinkwrap (as the npm registry does, it marks a version that carries one with
 * `_hasShrinkwrap`). The project's `overrides` do not reach a user's install; the shrinkwrap does:
 * Pact's telemetry is the empty package, and no installed package has an install script to run.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANG_MS } from '../helpers/hang.js';
import { startServer, type TestServer } from '../helpers/server.js';

const root = new URL('../../', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'svc-registry-'));
const prefix = join(work, 'prefix');
const installed = join(prefix, 'lib', 'node_modules', 'visa-report-svc');

interface LockEntry {
  name?: string;
  version?: string;
  integrity?: string;
  optional?: boolean;
}

let registry: TestServer;
let shrinkwrap: { packages: Record<string, LockEntry> };

/** Every package directory under `directory`'s node_modules, nested ones included. */
function packagesUnder(directory: string): string[] {
  const modules = join(directory, 'node_modules');
  if (!existsSync(modules)) return [];
  return readdirSync(modules)
    .filter((entry) => !entry.startsWith('.'))
    .flatMap((entry) => (entry.startsWith('@') ? readdirSync(join(modules, entry)).map((name) => join(modules, entry, name)) : [join(modules, entry)]))
    .flatMap((path) => [path, ...packagesUnder(path)]);
}

beforeAll(async () => {
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const ours = execFileSync(process.execPath, [join(root, 'scripts', 'npm-package.js'), work], { encoding: 'utf8' }).trim();
  execFileSync('tar', ['-xzf', ours, '-C', work, 'package/npm-shrinkwrap.json', 'package/package.json']);
  shrinkwrap = JSON.parse(readFileSync(join(work, 'package', 'npm-shrinkwrap.json'), 'utf8'));
  const manifest = JSON.parse(readFileSync(join(work, 'package', 'package.json'), 'utf8'));

  // name -> version -> [tarball file, integrity].
  const held = new Map<string, Map<string, [string, string]>>();
  const hold = (name: string, version: string, file: string, integrity: string) =>
    held.set(name, (held.get(name) ?? new Map<string, [string, string]>()).set(version, [file, integrity]));
  // What npm ci installed here, so what its cache holds: packages of other platforms are neither there nor needed.
  const entries = Object.entries(shrinkwrap.packages).filter(([path]) => path !== '' && existsSync(join(root, path)));
  const packed = JSON.parse(
    execFileSync(
      'npm',
      [
        'pack',
        '--offline',
        '--json',
        '--pack-destination',
        tarballs,
        ...new Set(entries.map(([path, entry]) => `${entry.name ?? path.split('node_modules/').at(-1)}@${entry.version}`)),
      ],
      { cwd: work, encoding: 'utf8', maxBuffer: 1 << 26 },
    ),
  ) as Array<{ name: string; version: string; filename: string; integrity: string }>;
  for (const item of packed) hold(item.name, item.version, join(tarballs, item.filename), item.integrity);
  hold(manifest.name, manifest.version, ours, `sha512-${createHash('sha512').update(readFileSync(ours)).digest('base64')}`);

  registry = await startServer((request, response) => {
    const path = decodeURIComponent(request.path.split('?')[0]!.slice(1));
    const tarball = /^(.+)\/-\/(.+)$/.exec(path);
    if (tarball) {
      const file = [...(held.get(tarball[1]!)?.values() ?? [])].find(([name]) => name.endsWith(`/${tarball[2]}`))?.[0];
      if (!file) return response.writeHead(404).end();
      return response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(file));
    }
    const versions = held.get(path);
    if (!versions) return response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    const packument = {
      name: path,
      'dist-tags': { latest: [...versions.keys()].at(-1) },
      versions: Object.fromEntries(
        [...versions].map(([version, [file, sri]]) => {
          const own = path === manifest.name;
          const content = own ? manifest : { name: path, version };
          return [version, { ...content, _hasShrinkwrap: own, dist: { tarball: `${registry.url}/${path}/-/${file.split('/').at(-1)}`, integrity: sri } }];
        }),
      ),
    };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument));
  });

  // Not execFileSync: the registry answers in this process.
  await promisify(execFile)(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--registry',
      `${registry.url}/`,
      '--cache',
      join(work, 'cache'),
      '--no-fund',
      '--no-audit',
      '--loglevel',
      'error',
      'visa-report-svc',
    ],
    { cwd: work, timeout: 5 * HANG_MS },
  );
}, 6 * HANG_MS);

afterAll(() => registry?.close());

describe('svc installed from a registry', () => {
  it("gets the empty package in place of Pact's telemetry, as the shrinkwrap it carries says", () => {
    expect(shrinkwrap.packages['node_modules/@scarf/scarf']).toMatchObject({ name: 'empty-npm-package', version: '1.0.0' });
    const scarf = JSON.parse(readFileSync(join(installed, 'node_modules', '@scarf', 'scarf', 'package.json'), 'utf8'));
    expect(scarf).toMatchObject({ name: 'empty-npm-package', version: '1.0.0' });
  });

  it('has no package with an install script or a binding.gyp: none ran', () => {
    const packages = packagesUnder(installed);
    expect(packages.length).toBeGreaterThan(100);
    const withScripts = packages.filter((path) => {
      const scripts = (JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
      // An empty script runs nothing (@pact-foundation/pact-core's `install: ""`).
      return ['preinstall', 'install', 'postinstall'].some((name) => Boolean(scripts[name])) || existsSync(join(path, 'binding.gyp'));
    });
    expect(withScripts).toEqual([]);
  });
});
