/**
 * svc installed as a user installs it, from a registry on 127.0.0.1 that holds the package
 * scripts/npm-package.js makes and, from npm's cache, exactly the packages of its shrinkwrap (as the
 * npm registry does, it marks a version that carries one with `_hasShrinkwrap`), with their manifests:
 * `npm install --global visa-report-svc`, which follows the shrinkwrap; `npm install --global` of the
 * tarball file, and `npm install` of it into a project, which resolve the dependencies afresh from the
 * same registry. The registry also holds a @scarf/scarf 1.4.0 of the test's own, with the install
 * script the real one has (it reports the install to Scarf): what npm takes for Pact's
 * `@scarf/scarf@^1.4.0` wherever svc's package depends on Pact. Every script npm runs goes through a
 * shell that records it: none may run. And packing svc as npm does from the checkout (`npm pack`,
 * `npm publish`) is refused.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HANG_MS } from '../helpers/hang.js';
import { startServer, type TestServer } from '../helpers/server.js';

const root = new URL('../../', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'svc-registry-'));
/** What each install ran through npm's script shell: `<directory>\t<script>` a line. */
const scriptsRan = join(work, 'scripts-ran.log');
const recorder = join(work, 'record-script.sh');

interface LockEntry {
  name?: string;
  version?: string;
  integrity?: string;
  optional?: boolean;
}

let registry: TestServer;
/** The names whose listing the registry was asked for. */
const asked = new Set<string>();
let shrinkwrap: { packages: Record<string, LockEntry> };
let ours = '';

/** Every package directory under `directory`'s node_modules, nested ones included. */
function packagesUnder(directory: string): string[] {
  const modules = join(directory, 'node_modules');
  if (!existsSync(modules)) return [];
  return readdirSync(modules)
    .filter((entry) => !entry.startsWith('.'))
    .flatMap((entry) => (entry.startsWith('@') ? readdirSync(join(modules, entry)).map((name) => join(modules, entry, name)) : [join(modules, entry)]))
    .flatMap((path) => [path, ...packagesUnder(path)]);
}

const sri = (file: string) => `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;

/** A @scarf/scarf 1.4.0 as the registry has it: its install script runs its report.js (this one reports nothing). */
function scarfOfTheRegistry(directory: string): string {
  const source = join(directory, 'scarf', 'package');
  mkdirSync(source, { recursive: true });
  writeFileSync(
    join(source, 'package.json'),
    JSON.stringify({ name: '@scarf/scarf', version: '1.4.0', main: 'report.js', scripts: { postinstall: 'node ./report.js' }, license: 'Apache-2.0' }),
  );
  writeFileSync(join(source, 'report.js'), '// Where the real one reports the install to Scarf.\n');
  const file = join(directory, 'scarf-scarf-1.4.0.tgz');
  execFileSync('tar', ['-czf', file, '-C', join(directory, 'scarf'), 'package']);
  return file;
}

/**
 * `npm install` of `what` (`--global` into `prefix`, or into the project there), from the registry
 * alone, every script it runs recorded.
 */
async function install(what: string, prefix: string, global = true): Promise<void> {
  mkdirSync(prefix, { recursive: true });
  if (!global) writeFileSync(join(prefix, 'package.json'), JSON.stringify({ name: 'an-application', version: '1.0.0', private: true }));
  // Not execFileSync: the registry answers in this process.
  await promisify(execFile)(
    'npm',
    [
      'install',
      ...(global ? ['--global', '--prefix', prefix] : []),
      '--registry',
      `${registry.url}/`,
      '--cache',
      join(work, 'cache'),
      '--script-shell',
      recorder,
      '--no-fund',
      '--no-audit',
      '--loglevel',
      'error',
      what,
    ],
    { cwd: global ? work : prefix, timeout: 5 * HANG_MS },
  );
}

beforeAll(async () => {
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  writeFileSync(recorder, `#!/bin/sh\nprintf '%s\\t%s\\n' "$PWD" "$*" >> '${scriptsRan}'\nexec /bin/sh "$@"\n`, { mode: 0o755 });
  ours = execFileSync(process.execPath, [join(root, 'scripts', 'npm-package.js'), work], { encoding: 'utf8' }).trim();
  execFileSync('tar', ['-xzf', ours, '-C', work, 'package/npm-shrinkwrap.json', 'package/package.json']);
  shrinkwrap = JSON.parse(readFileSync(join(work, 'package', 'npm-shrinkwrap.json'), 'utf8'));
  const manifest = JSON.parse(readFileSync(join(work, 'package', 'package.json'), 'utf8'));

  // name -> version -> [tarball file, integrity, manifest].
  const held = new Map<string, Map<string, [string, string, Record<string, unknown>]>>();
  const hold = (name: string, version: string, file: string, integrity: string, content: Record<string, unknown>) =>
    held.set(name, (held.get(name) ?? new Map()).set(version, [file, integrity, content]));
  // What npm ci installed here, so what its cache holds: packages of other platforms are neither there nor needed.
  const entries = Object.entries(shrinkwrap.packages).filter(([path]) => path !== '' && existsSync(join(root, path)));
  const manifests = new Map(
    entries.map(([path, entry]) => [
      `${entry.name ?? path.split('node_modules/').at(-1)}@${entry.version}`,
      JSON.parse(readFileSync(join(root, path, 'package.json'), 'utf8')),
    ]),
  );
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--offline', '--json', '--pack-destination', tarballs, ...manifests.keys()], {
      cwd: work,
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    }),
  ) as Array<{ name: string; version: string; filename: string; integrity: string }>;
  // A package's manifest as the registry serves it: its own, under the name it is published as (an alias is installed under another).
  for (const item of packed) {
    const content = { ...manifests.get(`${item.name}@${item.version}`), name: item.name, version: item.version };
    hold(item.name, item.version, join(tarballs, item.filename), item.integrity, content);
  }
  const scarf = scarfOfTheRegistry(work);
  hold('@scarf/scarf', '1.4.0', scarf, sri(scarf), JSON.parse(execFileSync('tar', ['-xzOf', scarf, 'package/package.json'], { encoding: 'utf8' })));
  hold(manifest.name, manifest.version, ours, sri(ours), { ...manifest, _hasShrinkwrap: true });

  registry = await startServer((request, response) => {
    const path = decodeURIComponent(request.path.split('?')[0]!.slice(1));
    const tarball = /^(.+)\/-\/(.+)$/.exec(path);
    if (tarball) {
      const file = [...(held.get(tarball[1]!)?.values() ?? [])].find(([name]) => name.endsWith(`/${tarball[2]}`))?.[0];
      if (!file) return response.writeHead(404).end();
      return response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(file));
    }
    asked.add(path);
    const versions = held.get(path);
    if (!versions) return response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    const packument = {
      name: path,
      'dist-tags': { latest: [...versions.keys()].at(-1) },
      versions: Object.fromEntries(
        [...versions].map(([version, [file, integrity, content]]) => [
          version,
          { ...content, dist: { tarball: `${registry.url}/${path}/-/${file.split('/').at(-1)}`, integrity } },
        ]),
      ),
    };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument));
  });
}, 6 * HANG_MS);

afterAll(() => registry?.close());

/** Whether a package has an install script, or a binding.gyp (which npm builds when it has none). */
function runsAtInstall(path: string): boolean {
  const scripts = (JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
  // An empty script runs nothing (@pact-foundation/pact-core's `install: ""`).
  return ['preinstall', 'install', 'postinstall'].some((name) => Boolean(scripts[name])) || existsSync(join(path, 'binding.gyp'));
}

/** An install that ran no script, took no @scarf/scarf and holds no package that would run one. */
function expectNoScriptRan(modules: string): void {
  expect(existsSync(scriptsRan) ? readFileSync(scriptsRan, 'utf8') : '').toBe('');
  expect(asked).not.toContain('@scarf/scarf');
  const packages = packagesUnder(modules);
  expect(packages.length).toBeGreaterThan(50);
  expect(packages.filter((path) => path.includes('@scarf'))).toEqual([]);
  expect(packages.filter(runsAtInstall)).toEqual([]);
}

describe('svc installed from a registry, as its shrinkwrap says', () => {
  beforeAll(() => install('visa-report-svc', join(work, 'from-registry')), 5 * HANG_MS);

  it("runs no install script: Pact's telemetry is no dependency of the package, whose shrinkwrap npm follows", () => {
    expect(Object.keys(shrinkwrap.packages).filter((path) => /@scarf|@pact-foundation\/pact$/.test(path))).toEqual([]);
    expectNoScriptRan(join(work, 'from-registry', 'lib', 'node_modules', 'visa-report-svc'));
  });
});

describe('svc installed from its tarball, whose dependencies npm resolves afresh', () => {
  beforeEach(() => asked.clear());

  it('runs no install script, installed globally', { timeout: 5 * HANG_MS }, async () => {
    await install(ours, join(work, 'from-tarball'));
    // The dependencies were resolved afresh: the registry was asked for them.
    expect(asked).toContain('@pact-foundation/pact-core');
    expectNoScriptRan(join(work, 'from-tarball', 'lib', 'node_modules', 'visa-report-svc'));
  });

  it('runs no install script, installed into a project, where npm hoists its dependencies', { timeout: 5 * HANG_MS }, async () => {
    const project = join(work, 'project');
    await install(ours, project, false);
    expect(asked).toContain('@pact-foundation/pact-core');
    expectNoScriptRan(project);
  });
});

describe('packing svc from the checkout as npm does', () => {
  it.each([['pack'], ['publish', '--dry-run']])('is refused: npm %s makes no package without the shrinkwrap', (...command) => {
    // The checkout's package.json and its guard, alone: npm runs `prepack` first, which refuses before `prepare` would build.
    const checkout = mkdtempSync(join(tmpdir(), 'svc-checkout-'));
    mkdirSync(join(checkout, 'scripts'));
    copyFileSync(join(root, 'package.json'), join(checkout, 'package.json'));
    copyFileSync(join(root, 'scripts', 'package-guard.js'), join(checkout, 'scripts', 'package-guard.js'));
    const result = spawnSync('npm', [...command, '--registry', 'http://127.0.0.1:9/'], { cwd: checkout, encoding: 'utf8', timeout: HANG_MS });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('Refusing to pack svc: it carries no npm-shrinkwrap.json');
    expect(result.stderr).toContain('node scripts/npm-package.js DIR');
    expect(readdirSync(checkout).filter((name) => name.endsWith('.tgz'))).toEqual([]);
  });
});
