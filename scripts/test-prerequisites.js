// What `npm test` needs beyond npm packages: a headless Chromium, to render the HTML report
// (test/commands/report-view.test.ts). Installs Debian's chromium where the machine can (root, apt-get),
// as on CI's fresh machine; otherwise says what to install. SVC_CHROMIUM names another browser.
import { spawnSync } from 'node:child_process';

const found = (command) => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;
const browser = process.env.SVC_CHROMIUM ?? 'chromium';

if (!found(browser)) {
  if (process.env.SVC_CHROMIUM || process.getuid?.() !== 0 || !found('apt-get')) {
    console.error(
      `npm test needs a headless Chromium (${browser} was not found): install Debian's chromium package (apt-get install chromium), or set SVC_CHROMIUM to a Chromium or Chrome binary.`,
    );
    process.exit(1);
  }
  console.error("Installing Debian's chromium for the HTML report test (apt-get)…");
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', '--no-install-recommends', 'chromium'],
  ]) {
    const result = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (result.status !== 0) {
      console.error(`apt-get ${args.join(' ')} failed (exit ${result.status}): install chromium by hand, or set SVC_CHROMIUM.`);
      process.exit(1);
    }
  }
}
