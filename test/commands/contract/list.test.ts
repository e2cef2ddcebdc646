import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../../src/conformance/catalogue.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

describe('svc contract list', () => {
  it('prints the catalogue: id, level, part, how it is verified, what it needs, title', async () => {
    const result = await svcInProcess(['contract', 'list'], { env: isolatedEnv() });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe('id\tlevel\tpart\tverified by\tneeds\ttitle');
    expect(lines).toHaveLength(CATALOGUE.length + 1);
    expect(lines).toContain(
      'auth.read-only-cannot-write\tspec\t4\tprobe\treadOnlyKey\ta read-only key that writes gets 403 with the code forbidden, and nothing changes',
    );
    const json = JSON.parse((await svcInProcess(['contract', 'list', '--json'], { env: isolatedEnv() })).stdout);
    expect(json.map((check: { id: string }) => check.id)).toEqual(CATALOGUE.map((check) => check.id));
  });
});
