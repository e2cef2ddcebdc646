import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SVC_BIN } from '../helpers/svc.js';

const checkout = join(dirname(SVC_BIN), '..');

/** A Node older than 22 on this machine, if there is one (the machines here carry Node 20). */
function oldNode(): string | undefined {
  const candidates = spawnSync('which', ['-a', 'node'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  return candidates.find((path) => {
    const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout.trim();
    return Number(version.replace(/^v/, '').split('.')[0]) < 22;
  });
}

describe('bin/run.js on an old Node', () => {
  const node = oldNode();
  it.skipIf(!node)('refuses with a clear message and exit code 1; in a checkout, it points to the Node the checkout pins', () => {
    const result = spawnSync(node!, [SVC_BIN, '--version'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('svc needs Node.js 22.19 or newer');
    expect(result.stderr).toContain(`In this checkout, run ${join(checkout, 'svc')}, which runs svc on the Node 24 the project pins (npm ci installs it)`);
    expect(result.stdout).toBe('');
  });

  it.skipIf(!node)('installed without the pinned Node beside it, points to a newer Node or the self-contained build, not to npx', () => {
    // The files the old Node reads before it stops, laid out as npm installs the package.
    const installed = mkdtempSync(join(tmpdir(), 'svc-installed-'));
    mkdirSync(join(installed, 'bin'));
    copyFileSync(SVC_BIN, join(installed, 'bin', 'run.js'));
    copyFileSync(join(checkout, 'package.json'), join(installed, 'package.json'));
    copyFileSync(join(checkout, 'README.md'), join(installed, 'README.md'));
    const result = spawnSync(node!, [join(installed, 'bin', 'run.js'), 'demo'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('svc needs Node.js 22.19 or newer');
    expect(result.stderr).toContain('Install Node.js 22.19 or newer (https://nodejs.org), or the self-contained build of svc, which carries its own Node');
    // No web page of svc's is public: the README the package carries says how.
    expect(result.stderr).toContain(`the linux-x64 tarball or the Debian package ("Installing" in ${join(installed, 'README.md')}).`);
    expect(result.stderr).not.toContain('npx');
  });

  it('runs on the Node the project pins', () => {
    expect(execFileSync(process.execPath, [SVC_BIN, '--version'], { encoding: 'utf8' })).toMatch(/^svc\/\d+\.\d+\.\d+ .* node-v2[2-9]|node-v[3-9]\d/);
  });

  it('names the commit and the date of the build', () => {
    const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: checkout, encoding: 'utf8' }).trim();
    const output = execFileSync(process.execPath, [SVC_BIN, '--version'], { encoding: 'utf8' });
    expect(output).toMatch(
      new RegExp(
        `^svc/\\d+\\.\\d+\\.\\d+ ${process.platform}-${process.arch} node-v\\S+ commit ${commit}(-modified)? built \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z\n$`,
      ),
    );
  });
});
