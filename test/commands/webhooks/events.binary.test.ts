import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { isolatedEnv, runSvc } from '../../helpers/svc.js';
import { HANG_MS } from '../../helpers/hang.js';

const SECRET = 'whsec_commands0123456789abcdefghijklmnop';

describe('svc webhooks events', () => {
  it("exits with the reason when --store lies under /proc, where Node's recursive mkdir spins forever", async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const result = await runSvc(['webhooks', 'events', '--store', '/proc/no-such-dir/events.db', '--json'], { env, killAfterMs: HANG_MS });
    expect(result.code).toBe(ExitCode.config);
    expect(JSON.parse(result.stdout).error.message).toContain("ENOENT: no such file or directory, mkdir '/proc/no-such-dir'");
  });
});
