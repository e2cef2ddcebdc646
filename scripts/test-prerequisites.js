// What `npm test` needs beyond npm packages: a headless Chromium, to render the HTML report
// (test/commands/report-view.test.ts), and PostgreSQL's server binaries, for the tests of a listener
// fleet's store (test/helpers/postgres.ts starts a throwaway cluster from them), what oclif's Debian
// packing runs besides dpkg-deb (test/packaging/self-contained.test.ts), and xmllint, which validates the
// kit's JUnit reports against Jenkins' schema (test/conformance/junit-readers.test.ts). Installs Debian's
// packages where the machine can (root, apt-get), as on CI's fresh machine; otherwise says what to
// install. SVC_CHROMIUM names another browser, SVC_POSTGRES_BIN another folder of PostgreSQL binaries.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const found = (command) => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;
const browser = process.env.SVC_CHROMIUM ?? 'chromium';
const postgresFound = () =>
  process.env.SVC_POSTGRES_BIN
    ? existsSync(join(process.env.SVC_POSTGRES_BIN, 'initdb'))
    : existsSync('/usr/lib/postgresql') &&
      readdirSync('/usr/lib/postgresql').some((version) => existsSync(join('/usr/lib/postgresql', version, 'bin', 'initdb')));

const missing = [];
if (!found(browser)) {
  missing.push({
    name: 'chromium',
    what: `a headless Chromium (${browser} was not found)`,
    instead: "install Debian's chromium package (apt-get install chromium), or set SVC_CHROMIUM to a Chromium or Chrome binary",
    installable: !process.env.SVC_CHROMIUM,
  });
}
if (!postgresFound()) {
  missing.push({
    name: 'postgresql',
    what: "PostgreSQL's server binaries (initdb, pg_ctl, postgres)",
    instead:
      "install Debian's postgresql package (apt-get install postgresql; no server needs to run, the tests start their own), or set SVC_POSTGRES_BIN to the folder holding initdb",
    installable: !process.env.SVC_POSTGRES_BIN,
  });
}
const commandFound = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
if (!commandFound('xmllint')) {
  missing.push({
    name: 'libxml2-utils',
    what: 'xmllint, to validate JUnit reports against a schema',
    instead: "install Debian's libxml2-utils package (apt-get install libxml2-utils)",
    installable: true,
  });
}
for (const [command, name] of [
  ['apt-ftparchive', 'apt-utils'],
  ['sudo', 'sudo'],
]) {
  if (commandFound('dpkg-deb') && !commandFound(command))
    missing.push({
      name,
      what: `${command}, which oclif's Debian packing runs`,
      instead: `install Debian's ${name} package (apt-get install ${name})`,
      installable: true,
    });
}

const canInstall = process.getuid?.() === 0 && found('apt-get');
for (const item of missing.filter((item) => !canInstall || !item.installable)) {
  console.error(`npm test needs ${item.what}: ${item.instead}.`);
}
if (missing.some((item) => !canInstall || !item.installable)) process.exit(1);

if (missing.length > 0) {
  const packages = missing.map((item) => item.name);
  console.error(`Installing Debian's ${packages.join(' and ')} for the tests (apt-get)…`);
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', '--no-install-recommends', ...packages],
  ]) {
    const result = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (result.status !== 0) {
      console.error(`apt-get ${args.join(' ')} failed (exit ${result.status}): install ${packages.join(' and ')} by hand (see above for what each is for).`);
      process.exit(1);
    }
  }
}
