import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

const KEY = 'svc_test_configkey0123456789abcdefghij';

function configFile(env: Record<string, string>): string {
  return join(env.XDG_CONFIG_HOME!, 'svc', 'config.json');
}

describe('svc config set', () => {
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

  it('never overwrites a config file it cannot parse', async () => {
    const env = isolatedEnv();
    await svcInProcess(['config', 'set', 'base_url', 'https://a.example.com'], { env });
    writeFileSync(configFile(env), '{ broken', { mode: 0o600 });
    const set = await svcInProcess(['config', 'set', 'base_url', 'https://b.example.com'], { env });
    expect(set.code).toBe(ExitCode.config);
    expect(set.stderr).toContain('is not valid JSON');
    expect(readFileSync(configFile(env), 'utf8')).toBe('{ broken');
  });
});
