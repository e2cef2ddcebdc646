import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));

interface LockEntry {
  hasInstallScript?: boolean;
  link?: boolean;
  resolved?: string;
}

const manifest = readJson('package.json') as {
  dependencies: Record<string, string>;
  allowScripts?: Record<string, boolean>;
  oclif: { plugins: string[] };
};
const lockedPackages = Object.entries((readJson('package-lock.json') as { packages: Record<string, LockEntry> }).packages).filter(
  ([path, entry]) => path.startsWith('node_modules/') && !entry.link,
);

/** What a package the build bundles needs that the bundle leaves out, by the bundled package: Pact's native core. */
const LEFT_OUT_OF_BUNDLED = { '@pact-foundation/pact': '@pact-foundation/pact-core' };

/** Packages whose install script `npm ci` runs: only the pinned Node toolchain, whose preinstall puts its node binary in place. */
const INSTALL_SCRIPTS_ALLOWED = ['node'];

const packageNameOf = (lockPath: string) => lockPath.slice(lockPath.lastIndexOf('node_modules/') + 'node_modules/'.length);

/** The package a bare import specifier names: `@scope/name` or `name`, without a subpath. */
const packageOfSpecifier = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

function sourceFiles(directory: string): string[] {
  return readdirSync(join(root, directory), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => join(directory, file));
}

/** Every package svc's own code imports (statically or with `import()`), Node's built-ins aside. */
function packagesImportedAtRunTime(): Set<string> {
  const packages = new Set<string>();
  for (const file of [...sourceFiles('src'), ...sourceFiles('bin')]) {
    for (const { fileName } of ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.') && !isBuiltin(fileName)) packages.add(packageOfSpecifier(fileName));
    }
  }
  return packages;
}

describe('install scripts', () => {
  it('no package of package-lock.json has an install script but the allowed ones (no telemetry script runs on npm ci)', () => {
    const withInstallScript = lockedPackages.filter(([, entry]) => entry.hasInstallScript).map(([path]) => packageNameOf(path));
    expect(withInstallScript.sort()).toEqual(INSTALL_SCRIPTS_ALLOWED);
  });

  it('no installed package has a preinstall, install or postinstall script, or a binding.gyp, but the allowed ones', () => {
    const withInstallScript = lockedPackages
      .map(([path]) => path)
      .filter((path) => existsSync(join(root, path, 'package.json')))
      .filter((path) => {
        const scripts = (readJson(join(path, 'package.json')) as { scripts?: Record<string, string> }).scripts ?? {};
        // An empty script runs nothing (@pact-foundation/pact-core's `install: ""`).
        return ['preinstall', 'install', 'postinstall'].some((name) => Boolean(scripts[name])) || existsSync(join(root, path, 'binding.gyp'));
      })
      .map(packageNameOf);
    expect(withInstallScript.sort()).toEqual(INSTALL_SCRIPTS_ALLOWED);
  });

  it("package.json's allowScripts approves the allowed ones, so an npm that blocks unreviewed scripts still runs them", () => {
    for (const name of INSTALL_SCRIPTS_ALLOWED) expect(manifest.allowScripts?.[name], name).toBe(true);
  });
});

describe('runtime dependencies', () => {
  it('every entry of dependencies is imported by src/ or bin/, is an oclif plugin, or is what a bundled package needs and the bundle leaves out: what only tests use is a devDependency', () => {
    const used = packagesImportedAtRunTime();
    const unused = Object.keys(manifest.dependencies).filter(
      (name) => !used.has(name) && !manifest.oclif.plugins.includes(name) && !Object.values(LEFT_OUT_OF_BUNDLED).includes(name),
    );
    expect(unused).toEqual([]);
  });

  it('every package src/ and bin/ import that the bundle leaves out is an entry of dependencies, so an install has what svc runs', () => {
    // scripts/build.js bundles every import but those it names external, which stay in node_modules.
    const external = /external: \[([^\]]*)\]/
      .exec(readFileSync(join(root, 'scripts/build.js'), 'utf8'))![1]!
      .match(/'[^']+'/g)!
      .map((name) => name.slice(1, -1));
    expect(external).toContain('@pact-foundation/pact-core');
    const missing = [...packagesImportedAtRunTime(), ...Object.values(LEFT_OUT_OF_BUNDLED)].filter(
      (name) => external.includes(name) && manifest.dependencies[name] === undefined,
    );
    expect(missing).toEqual([]);
  });

  it("bundles Pact's JavaScript, so that Pact's telemetry (@scarf/scarf, an install script that reports to Scarf) is no dependency of svc's package", () => {
    expect(manifest.dependencies['@pact-foundation/pact']).toBeUndefined();
    const runtime = Object.entries((readJson('package-lock.json') as { packages: Record<string, { dev?: boolean }> }).packages).filter(
      ([path, entry]) => path !== '' && !entry.dev,
    );
    expect(runtime.map(([path]) => path).filter((path) => /@scarf\/|@pact-foundation\/pact$/.test(path))).toEqual([]);
  });
});
