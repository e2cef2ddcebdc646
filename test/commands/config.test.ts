import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { svcInProcess } from '../helpers/in-process.js';
import { isolatedEnv } from '../helpers/svc.js';

const KEY = 'svc_test_configkey0123456789abcdefghij';
const ADMIN = 'svc_admin_config_admin_0123456789_abcdefgh';

let server: TestServer;
beforeAll(async () => {
  server = await startServer((_request, response) => json(response, 200, { object: 'list', data: [], has_more: false }));
});
afterAll(() => server.close());

function configFile(env: Record<string, string>): string {
  return join(env.XDG_CONFIG_HOME!, 'svc', 'config.json');
}

describe('svc config', () => {
  it('saves a key read from stdin in a 0600 file and never prints it', async () => {
    const env = isolatedEnv();
    const set = await svcInProcess(['config', 'set', 'api_key'], { env, input: `${KEY}\n` });
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('svc_test_…ghij');
    expect(set.stdout + set.stderr).not.toContain(KEY);
    expect(statSync(configFile(env)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(configFile(env), 'utf8')).profiles.default.api_key).toBe(KEY);

    const get = await svcInProcess(['config', 'get', 'api_key', '--json'], { env });
    expect(JSON.parse(get.stdout)).toEqual({ profile: 'default', name: 'api_key', value: 'svc_test_…ghij' });
  });

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

  it('warns when a key is given as an argument', async () => {
    const env = isolatedEnv();
    const set = await svcInProcess(['config', 'set', 'api_key', KEY], { env });
    expect(set.code).toBe(0);
    expect(set.stderr).toContain('visible to other local users');
    expect(set.stdout + set.stderr).not.toContain(KEY);
  });

  it.each([
    ['api_key', 'sk_test_abcdefghijklmnop', 'has no known prefix', ExitCode.config],
    // A key that cannot manage keys, as the README's table says.
    ['admin_key', KEY, 'is a test key', ExitCode.permission],
    ['base_url', 'http://api.example.com', 'refusing the plain HTTP base URL', ExitCode.config],
    ['base_url', 'not a url', 'is not a URL', ExitCode.config],
  ])('refuses %s = %s', async (name, value, message, code) => {
    const env = isolatedEnv();
    const set = await svcInProcess(['config', 'set', name], { env, input: value });
    expect(set.code).toBe(code);
    expect(set.stderr).toContain(message);
  });

  it('refuses an unknown setting and lists the known ones', async () => {
    const set = await svcInProcess(['config', 'set', 'colour', 'blue'], { env: isolatedEnv() });
    expect(set.code).toBe(ExitCode.usage);
    expect(set.stderr).toContain('base_url, api_key, admin_key, ca_cert');
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

  it('never overwrites a config file it cannot parse', async () => {
    const env = isolatedEnv();
    await svcInProcess(['config', 'set', 'base_url', 'https://a.example.com'], { env });
    writeFileSync(configFile(env), '{ broken', { mode: 0o600 });
    const set = await svcInProcess(['config', 'set', 'base_url', 'https://b.example.com'], { env });
    expect(set.code).toBe(ExitCode.config);
    expect(set.stderr).toContain('is not valid JSON');
    expect(readFileSync(configFile(env), 'utf8')).toBe('{ broken');
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
