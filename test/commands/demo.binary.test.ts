import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/api/types.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

/**
 * What only a process of its own shows of `svc demo`: that it leaves nothing in the process's
 * temporary directory (TMPDIR, which a command run in the test's process does not have).
 */

describe('svc demo', () => {
  it('runs the whole path on a fresh machine and leaves nothing behind', async () => {
    const env = isolatedEnv();
    const scratch = join(env.HOME!, 'tmp');
    mkdirSync(scratch);
    const demo = await runSvc(['demo', '--json'], { env: { ...env, TMPDIR: scratch } });
    expect(demo.code, demo.stderr).toBe(0);
    const report = JSON.parse(demo.stdout) as Report;
    expect(report.status).toBe('completed');
    expect(demo.stderr).toMatch(/report\.completed evt_\w+ received, signature verified/);
    // Node's compile cache (bin/run.js) lives in the temporary directory too; it is not the demo's.
    expect(readdirSync(scratch).filter((name) => name !== 'node-compile-cache')).toEqual([]);
  });
});
