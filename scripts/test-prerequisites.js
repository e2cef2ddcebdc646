// What `npm test` needs beyond npm packages: a headless Chromium, to render the HTML report
// (test/commands/report-view.test.ts), and what oclif's Debian packing runs (apt-ftparchive, sudo, for
// test/packaging/self-contained.test.ts). Installs Debian's packages where the machine can (root,
// apt-get), as on CI's fresh machine; otherwise says what to install. SVC_CHROMIUM names another browser.
import { spawnSync } from 'node:child_process';

const found = (command, args = ['--version']) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const browser = process.env.SVC_CHROMIUM ?? 'chromium';
const canInstall = process.getuid?.() === 0 && found('apt-get');

const missing = [];
if (!found(browser)) {
  if (process.env.SVC_CHROMIUM || !canInstall) {
    console.error(
      `npm test needs a headless Chromium (${browser} was not found): install Debian's chromium package (apt-get install chromium), or set SVC_CHROMIUM to a Chromium or Chrome binary.`,
    );
    process.exit(1);
  }
  missing.push('chromium');
}
if (found('dpkg-deb')) {
  if (!found('sh', ['-c', 'command -v apt-ftparchive'])) missing.push('apt-utils');
  if (!found('sh', ['-c', 'command -v sudo'])) missing.push('sudo');
}
if (missing.length > 0) {
  if (!canInstall) {
    console.error(`npm test needs Debian's ${missing.join(', ')}: apt-get install ${missing.join(' ')}`);
    process.exit(1);
  }
  console.error(`Installing Debian's ${missing.join(', ')} for npm test (apt-get)…`);
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', '--no-install-recommends', ...missing],
  ]) {
    const result = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (result.status !== 0) {
      console.error(`apt-get ${args.join(' ')} failed (exit ${result.status}): install ${missing.join(' ')} by hand.`);
      process.exit(1);
    }
  }
}
