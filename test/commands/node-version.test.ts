import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SVC_BIN } from '../helpers/svc.js';

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
  it.skipIf(!node)('refuses with a clear message and exit code 1', () => {
    const result = spawnSync(node!, [SVC_BIN, '--version'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('svc needs Node.js 22.19 or newer');
    expect(result.stdout).toBe('');
  });

  it('runs on the Node the project pins', () => {
    expect(execFileSync(process.execPath, [SVC_BIN, '--version'], { encoding: 'utf8' })).toMatch(/^svc\/\d+\.\d+\.\d+ .* node-v2[2-9]|node-v[3-9]\d/);
  });
});
