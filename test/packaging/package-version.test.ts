import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildVersion } from '../../scripts/package-version.js';

/** Whether dpkg holds `a` lower than `b`, as apt does before an upgrade. */
const sortsLower = (a: string, b: string) => spawnSync('dpkg', ['--compare-versions', a, 'lt', b]).status === 0;

describe.skipIf(spawnSync('dpkg', ['--version']).status !== 0)("a self-contained build's version", () => {
  it('names the version, the commit’s time in UTC and the commit', () => {
    expect(buildVersion('0.1.0', new Date('2025-11-15T09:04:05.678+01:00'), 'f00ba12')).toBe('0.1.0+git20251115080405.f00ba12');
  });

  it('sorts a later commit higher whatever the hashes, above the release it follows and below the next', () => {
    const earlier = `${buildVersion('0.1.0', new Date('2025-11-15T09:04:05Z'), 'f00ba12')}-1`;
    const sameDay = `${buildVersion('0.1.0', new Date('2025-11-15T23:00:00Z'), '0a1b2c3')}-1`;
    const nextDay = `${buildVersion('0.1.0', new Date('2025-11-16T00:00:01Z'), '0000000')}-1`;
    expect(sortsLower(earlier, sameDay)).toBe(true);
    expect(sortsLower(sameDay, nextDay)).toBe(true);
    expect(sortsLower('0.1.0-1', earlier)).toBe(true);
    expect(sortsLower(nextDay, '0.1.1-1')).toBe(true);
    // What oclif names a build, <version>.<hash>: the later commit's sorts lower here.
    expect(sortsLower('0.1.0.f00ba12-1', '0.1.0.0a1b2c3-1')).toBe(false);
  });
});
