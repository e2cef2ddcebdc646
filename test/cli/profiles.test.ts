import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { svcInProcess } from '../helpers/in-process.js';
import { isolatedEnv } from '../helpers/svc.js';

const KEY = 'svc_test_configkey0123456789abcdefghij';

let server: TestServer;
beforeAll(async () => {
  server = await startServer((_request, response) => json(response, 200, { object: 'list', data: [], has_more: false }));
});
afterAll(() => server.close());

function configFile(env: Record<string, string>): string {
  return join(env.XDG_CONFIG_HOME!, 'svc', 'config.json');
}

describe('the profile every command reads', () => {
  it('uses the saved profile to reach the API', async () => {
    const env = isolatedEnv();
    await svcInProcess(['config', 'set', 'base_url', server.url], { env });
    const set = await svcInProcess(['config', 'set', 'api_key'], { env, input: KEY });
    // Read from stdin by svc, not taken by oclif as the VALUE argument (which would warn of argv).
    expect(set.stderr).not.toContain('given as an argument');
    const before = server.requests.length;
    const list = await svcInProcess(['reports', 'list', '--json'], { env });
    expect(list.code).toBe(0);
    expect(server.requests[before]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('refuses to read a config file that other users can read, and says how to fix it', async () => {
    const env = isolatedEnv({ SVC_BASE_URL: server.url });
    await svcInProcess(['config', 'set', 'api_key'], { env, input: KEY });
    chmodSync(configFile(env), 0o644);
    const list = await svcInProcess(['reports', 'list'], { env });
    expect(list.code).toBe(ExitCode.config);
    expect(list.stderr).toContain('mode 0644');
    expect(list.stderr).toContain(`chmod 600 '${configFile(env)}'`);
    expect(list.stdout + list.stderr).not.toContain(KEY);
  });

  it('says which profile is missing, named by --profile or SVC_PROFILE, and which exist', async () => {
    const env = isolatedEnv();
    expect((await svcInProcess(['config', 'set', 'base_url', 'https://staging.example.com', '--profile', 'staging'], { env })).code).toBe(0);
    const byFlag = await svcInProcess(['reports', 'list', '--profile', 'nope'], { env });
    expect(byFlag.code).toBe(ExitCode.config);
    expect(byFlag.stderr).toContain('there is no profile named "nope" (from --profile); the profiles are "staging"');
    const byVariable = await svcInProcess(['reports', 'list'], { env: { ...env, SVC_PROFILE: 'nope' } });
    expect(byVariable.code).toBe(ExitCode.config);
    expect(byVariable.stderr).toContain('there is no profile named "nope" (from SVC_PROFILE); the profiles are "staging"');
    const none = await svcInProcess(['reports', 'list'], { env: isolatedEnv({ SVC_PROFILE: 'nope' }) });
    expect(none.stderr).toContain('there is no profile named "nope" (from SVC_PROFILE); no profile is saved');
  });
});
