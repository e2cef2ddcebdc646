// Makes svc's npm package: what `npm pack` makes, with an npm-shrinkwrap.json of the runtime
// dependencies as package-lock.json locks them, which npm follows when it installs the package from a
// registry (installed from the tarball file, npm resolves them afresh). None of them has an install
// script: Pact's JavaScript is bundled into dist/ (scripts/build.js), so Pact's telemetry (@scarf/scarf,
// whose install script reports to Scarf, and which the project's `overrides` replace only in svc's own
// checkout) is no dependency of the package. The package must pass scripts/package-guard.js, the check
// npm's `prepack` makes, which refuses `npm pack` and `npm publish` from the checkout (no shrinkwrap).
// It is built from the dist/ already built.
// Usage: node scripts/npm-package.js DIR   (prints the path of the package it wrote in DIR)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageProblems } from './package-guard.js';

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

// npm's own scripts stay off: `prepack` refuses the checkout, which has no shrinkwrap (the package is
// made from what it packs, and checked below), and `prepare` would build, with no sources in the package.
const pack = (directory, destination) =>
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', destination, directory], { cwd: root, encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1);

const work = mkdtempSync(join(tmpdir(), 'svc-npm-package-'));
execFileSync('tar', ['-xzf', join(work, pack(root, work)), '-C', work]);
writeFileSync(join(work, 'package', 'npm-shrinkwrap.json'), `${JSON.stringify(shrinkwrap(), null, 2)}\n`);
// The checkout's `overrides` reach no user's install (npm applies the installing project's alone): they go.
const { overrides: _, ...manifest } = JSON.parse(readFileSync(join(work, 'package', 'package.json'), 'utf8'));
writeFileSync(join(work, 'package', 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
const problems = packageProblems(join(work, 'package'));
if (problems.length > 0) {
  console.error(`The npm package would not install as it was tested: ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(join(out, pack(join(work, 'package'), out)));
rmSync(work, { recursive: true, force: true });
