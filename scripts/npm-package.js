// Makes svc's npm package: what `npm pack` makes, with an npm-shrinkwrap.json of the runtime
// dependencies as package-lock.json locks them. npm installs a package's shrinkwrap as it stands, and
// applies no `overrides` but the installing project's: so a user's install gets, like `npm ci`, the
// empty package in place of Pact's telemetry (@scarf/scarf, whose install script reports to Scarf),
// and the versions the tests ran. The package is built from the dist/ already built.
// Usage: node scripts/npm-package.js DIR   (prints the path of the package it wrote in DIR)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2];
if (!out) {
  console.error('Usage: node scripts/npm-package.js DIR');
  process.exit(2);
}

/** package-lock.json without what only development installs: the lock a user's install follows. */
function shrinkwrap() {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const { devDependencies: _, ...project } = lock.packages[''];
  const packages = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && !entry.dev && !entry.devOptional);
  return { ...lock, packages: { '': project, ...Object.fromEntries(packages) } };
}

// npm's own scripts stay off: `prepare` would build, with no sources in the package.
const pack = (directory, destination) =>
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', destination, directory], { cwd: root, encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1);

const work = mkdtempSync(join(tmpdir(), 'svc-npm-package-'));
execFileSync('tar', ['-xzf', join(work, pack(root, work)), '-C', work]);
writeFileSync(join(work, 'package', 'npm-shrinkwrap.json'), `${JSON.stringify(shrinkwrap(), null, 2)}\n`);
console.log(join(out, pack(join(work, 'package'), out)));
rmSync(work, { recursive: true, force: true });
