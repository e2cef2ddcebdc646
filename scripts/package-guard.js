// Refuses to make an npm package of svc that would run an install script of a dependency on a user's
// machine: `prepack` runs it, so that `npm pack` and `npm publish` from the checkout, which would make a
// package without the shrinkwrap, stop and say how the package is made; scripts/npm-package.js runs the
// same check on the package it made. A package passes when:
// - it carries an npm-shrinkwrap.json, which npm follows for a package it fetches from a registry;
// - npm finds that shrinkwrap whole: every runtime dependency it names satisfies the range of the package
//   that asks for it (`npm ls --omit=dev --package-lock-only`). A lock entry that does not (a range met by
//   an override of the checkout's, as Pact's `@scarf/scarf@^1.4.0` was by empty-npm-package@1.0.0) is
//   resolved afresh by npm, from the registry;
// - it names no `overrides`: npm applies those of the installing project alone, so what they replace in
//   svc's checkout would come back in a user's install (and `npm ls` here would take them as applied);
// - no package of it has an install script (`hasInstallScript` in the shrinkwrap), itself included;
// - no package of it is Pact's telemetry, @scarf/scarf, whatever stands in its place.
// Usage: node scripts/package-guard.js [DIR]   (the package's directory, the current one by default)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];

const hasInstallScript = (manifest) => INSTALL_SCRIPTS.some((name) => Boolean(manifest.scripts?.[name]));

/** What is wrong with the package in `dir` (an empty list when nothing is). */
export function packageProblems(dir) {
  const shrinkwrapPath = join(dir, 'npm-shrinkwrap.json');
  if (!existsSync(shrinkwrapPath)) {
    return [
      'it carries no npm-shrinkwrap.json: an install from a registry would resolve its dependencies afresh, past the lock, to versions (and install scripts) no test has seen. Make the package with `node scripts/npm-package.js DIR` and publish the tarball it writes (`npm publish DIR/visa-report-svc-<version>.tgz`)',
    ];
  }
  const problems = [];
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (manifest.overrides) problems.push("it names overrides, which npm applies to no user's install");
  const listed = (() => {
    try {
      return execFileSync('npm', ['ls', '--omit=dev', '--package-lock-only', '--all', '--json'], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch (error) {
      // npm ls exits 1 when it finds problems, and still prints them.
      return error.stdout;
    }
  })();
  for (const problem of JSON.parse(listed || '{}').problems ?? []) problems.push(`npm would not install its npm-shrinkwrap.json as it stands: ${problem}`);
  const shrinkwrap = JSON.parse(readFileSync(shrinkwrapPath, 'utf8'));
  for (const [path, entry] of Object.entries(shrinkwrap.packages ?? {})) {
    if (path !== '' && entry.hasInstallScript) problems.push(`${path} has an install script`);
    if (path.endsWith('node_modules/@scarf/scarf')) problems.push(`${path} is a dependency: Pact's telemetry, whose install script reports to Scarf`);
  }
  if (hasInstallScript(manifest)) problems.push('it has an install script of its own');
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = packageProblems(resolve(process.argv[2] ?? '.'));
  if (problems.length > 0) {
    console.error(`Refusing to pack svc: ${problems.join('\n  ')}`);
    process.exit(1);
  }
}
