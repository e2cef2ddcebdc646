import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSandboxProfile } from '../../../src/config/config-file.js';
import { pathsOf } from '../../../src/config/paths.js';
import { ExitCode } from '../../../src/core/errors.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandboxInProcess();
});
afterAll(() => sandbox.stop());

const profiles = (env: Record<string, string>) =>
  (JSON.parse(readFileSync(pathsOf(env).configFile, 'utf8')) as { profiles: Record<string, { base_url?: string }> }).profiles;

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 10_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('sandbox start on a port in use', () => {
  it('says so in words and exits 2, as webhooks listen does', async () => {
    const env = isolatedEnv();
    const result = await svcInProcess(['sandbox', 'start', '--port', String(sandbox.port), '--data-dir', join(env.HOME!, 'sandbox'), '--json'], { env });
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'cannot_listen', message: `cannot listen on 127.0.0.1:${sandbox.port}: EADDRINUSE` });
    expect(result.stderr).toContain('choose another with --port');
    expect(result.stderr).not.toContain('Error: listen EADDRINUSE');
  });
});

describe('sandbox start beside a running sandbox', () => {
  it('with another data directory, writes a profile of its own and leaves the first one pointing at the first sandbox', async () => {
    const other = join(sandbox.env.HOME!, 'second sandbox');
    let ready: { profile: string; url: string } | undefined;
    const second = await svcInProcess(['sandbox', 'start', '--port', '0', '--json', '--quiet', '--data-dir', other], {
      env: sandbox.env,
      whileRunning: async ({ stdout, interrupt }) => {
        await until(() => stdout().includes('"event":"ready"'));
        ready = JSON.parse(stdout().split('\n')[0]!) as { profile: string; url: string };
        // While both run, each profile leads to its own sandbox.
        expect((await svcInProcess(['reports', 'list', '--json', '--profile', ready.profile], { env: sandbox.env })).code).toBe(0);
        interrupt();
      },
    });
    expect(second.code, second.stderr).toBe(ExitCode.interrupted);
    // The second has stopped: the first sandbox's users go on with its profile.
    const listed = await svcInProcess(['reports', 'list', '--json'], { env: sandbox.env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(ready!.profile).toMatch(/^sandbox-second-sandbox-[0-9a-f]{8}$/);
    expect(isSandboxProfile(ready!.profile)).toBe(true);
    expect(profiles(sandbox.env)).toMatchObject({ sandbox: { base_url: sandbox.url }, [ready!.profile]: { base_url: ready!.url } });
  });

  it('with the same data directory, is refused (exit 15) naming the running one, and repoints nothing', async () => {
    const before = profiles(sandbox.env);
    const result = await svcInProcess(['sandbox', 'start', '--port', '0', '--json', '--data-dir', sandbox.dataDir], { env: sandbox.env });
    expect(result.code, result.stderr).toBe(ExitCode.refused);
    const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string; hint: string } };
    expect(error.code).toBe('sandbox_running');
    expect(error.message).toContain(`serving ${sandbox.url}`);
    expect(error.hint).toContain('profile "sandbox"');
    expect(profiles(sandbox.env)).toEqual(before);
  });
});

describe('sandbox start --host', () => {
  it('::1: the ready line and the profile name https://[::1]:<port>, which a command reaches over IPv6, the certificate naming it', async () => {
    const env = isolatedEnv();
    let ready: { url: string; host: string; port: number; profile: string } | undefined;
    let listed: { code: number | null; stderr: string } | undefined;
    const started = await svcInProcess(['sandbox', 'start', '--host', '::1', '--port', '0', '--json', '--quiet', '--data-dir', join(env.HOME!, 'v6')], {
      env,
      whileRunning: async ({ stdout, interrupt }) => {
        await until(() => stdout().includes('"event":"ready"'));
        ready = JSON.parse(stdout().split('\n')[0]!) as typeof ready;
        listed = await svcInProcess(['reports', 'list', '--json', '--profile', ready!.profile], { env });
        interrupt();
      },
    });
    expect(started.code, started.stderr).toBe(ExitCode.interrupted);
    expect(ready).toMatchObject({ url: `https://[::1]:${ready!.port}`, host: '::1' });
    expect(profiles(env)[ready!.profile]).toMatchObject({ base_url: `https://[::1]:${ready!.port}` });
    expect(listed!.code, listed!.stderr).toBe(0);
    // Loopback: nothing to warn of.
    expect(started.stderr).not.toContain('beyond loopback');
  });

  it('beyond loopback: warns before it listens that anyone who reaches it can call it; an address of no interface here is refused in words', async () => {
    const env = isolatedEnv();
    // 192.0.2.1 (TEST-NET-1) is no address of this machine: nothing listens beyond loopback.
    const result = await svcInProcess(['sandbox', 'start', '--host', '192.0.2.1', '--port', '0', '--json', '--data-dir', join(env.HOME!, 'far')], { env });
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    expect(result.stderr).toContain('the sandbox will listen on 192.0.2.1, beyond loopback: anyone who can reach its port can call it');
    expect(JSON.parse(result.stdout)).toMatchObject({
      error: { code: 'cannot_listen', message: 'cannot listen on 192.0.2.1:0: EADDRNOTAVAIL', hint: expect.stringContaining('not an address of this machine') },
    });
  });

  it('refuses a name, or anything but an IP address, saying what to give', async () => {
    const env = isolatedEnv();
    const result = await svcInProcess(['sandbox', 'start', '--host', 'localhost', '--port', '0', '--json', '--data-dir', join(env.HOME!, 'named')], { env });
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'invalid_host', message: '--host localhost is not an IP address' } });
  });
});
