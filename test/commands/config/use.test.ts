import { describe, expect, it } from 'vitest';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

const ADMIN = 'svc_admin_config_admin_0123456789_abcdefgh';

describe('svc config use', () => {
  it('keeps profiles apart and switches between them', async () => {
    const env = isolatedEnv();
    await svcInProcess(['config', 'set', 'base_url', 'https://staging.example.com', '--profile', 'staging'], { env });
    await svcInProcess(['config', 'set', 'base_url', 'https://prod.example.com'], { env });
    await svcInProcess(['config', 'set', 'admin_key', '--profile', 'staging'], { env, input: ADMIN });
    expect((await svcInProcess(['config', 'use', 'staging'], { env })).code).toBe(0);
    const list = await svcInProcess(['config', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout)).toMatchObject({
      current_profile: 'staging',
      profiles: {
        default: { base_url: 'https://prod.example.com' },
        staging: { base_url: 'https://staging.example.com', admin_key: 'svc_admin_…efgh' },
      },
    });
    expect(list.stdout).not.toContain(ADMIN);
    const unset = await svcInProcess(['config', 'unset', 'admin_key'], { env });
    expect(unset.stdout).toContain('Removed admin_key from profile "staging"');
  });
});
