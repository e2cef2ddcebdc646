/**
 * The self-contained builds (scripts/pack.js: oclif's tarball for linux-x64 and its Debian package),
 * each carrying the Node the project pins, used on a machine whose own Node is older: Node 20 first
 * on PATH. Both are built once for the file (packing is most of its time), then the tarball is
 * unpacked and the .deb installed with dpkg into a root of its own, and each runs --version, the demo
 * and the kit against the sandbox.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANG_MS } from '../helpers/hang.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { isolatedEnv } from '../helpers/svc.js';

const root = new URL('../../', import.meta.url);
const pjson = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string; author: string; license: string };
const pinned = (JSON.parse(readFileSync(new URL('node_modules/node/package.json', root), 'utf8')) as { version: string }).version;

/** A Node older than 22 on this machine (the machines here carry Node 20). */
function oldNode(): string | undefined {
  const candidates = spawnSync('which', ['-a', 'node'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  return candidates.find((path) => Number(spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout.replace(/^v/, '').split('.')[0]) < 22);
}
const node = oldNode();
const canPack = process.platform === 'linux' && process.arch === 'x64' && spawnSync('dpkg-deb', ['--version']).status === 0;

const out = mkdtempSync(join(tmpdir(), 'svc-packages-'));
let tarball = '';
let deb = '';
let sandbox: RunningSandbox;

beforeAll(async () => {
  if (!node || !canPack) return;
  for (const kind of ['tarball', 'deb'])
    execFileSync(process.execPath, [new URL('scripts/pack.js', root).pathname, kind, '--out', out], {
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: 8 * HANG_MS,
    });
  tarball = join(
    out,
    readdirSync(out).find((name) => name.endsWith('-linux-x64.tar.gz'))!,
  );
  deb = join(
    out,
    readdirSync(out).find((name) => name.endsWith('_amd64.deb'))!,
  );
  sandbox = await startSandboxProcess(['--quiet']);
}, 17 * HANG_MS);

afterAll(async () => {
  await sandbox?.stop();
});

/** A user whose PATH finds Node 20 first, and no other svc. */
function oldNodeEnv(): Record<string, string> {
  const env = isolatedEnv();
  mkdirSync(env.HOME!, { recursive: true });
  return { ...env, PATH: [dirname(node!), '/usr/bin', '/bin'].join(':') };
}

function run(svc: string, args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(svc, args, { env, timeout: 3 * HANG_MS, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** --version names the pinned Node; the demo runs; the kit runs to its verdict, Pact's checks that can run passing. */
async function usedAsShipped(svc: string): Promise<void> {
  const env = oldNodeEnv();
  expect(execFileSync('node', ['--version'], { env, encoding: 'utf8' })).toMatch(/^v(1\d|2[01])\./);
  const version = await run(svc, ['--version'], env);
  expect(version.stdout).toMatch(new RegExp(`^svc/${pjson.version.replace(/\./g, '\\.')} linux-x64 node-v${pinned.replace(/\./g, '\\.')} commit `));
  const demo = await run(svc, ['demo'], env);
  expect(demo.status, demo.stderr).toBe(0);
  expect(demo.stdout).toContain('risk score');
  const kit = await run(svc, ['contract', 'verify', '--fast', '--json', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert], {
    ...env,
    SVC_API_KEY: sandbox.keys.test,
    SVC_ADMIN_KEY: sandbox.keys.admin,
    SVC_READ_ONLY_KEY: sandbox.keys.read_only,
    SVC_IP_LOCKED_KEY: sandbox.keys.ip_locked,
    SVC_OTHER_WORKSPACE_KEY: sandbox.keys.other_workspace,
    SVC_OTHER_WORKSPACE_ADMIN_KEY: sandbox.keys.other_workspace_admin,
  });
  const result = JSON.parse(kit.stdout) as { failed: number; inconclusive: number; checks: Array<{ verified_by: string; status: string }> };
  // Whether the sandbox conforms is test/conformance/sandbox.test.ts's to say; here, that the kit runs whole from the package.
  expect(kit.status, kit.stderr).toBe(result.failed > 0 ? 17 : result.inconclusive > 0 ? 18 : 0);
  // Pact's native verifier runs from the package (the event and upload interactions are skipped: no receiver, no fixtures).
  const pact = result.checks.filter((check) => check.verified_by === 'pact');
  expect(pact.filter((check) => check.status === 'passed').length).toBeGreaterThan(0);
  expect(pact.filter((check) => check.status === 'failed' || check.status === 'inconclusive')).toEqual([]);
}

/**
 * oclif's own launcher runs an executable at $XDG_DATA_HOME/svc/client/bin/svc in svc's place, and a
 * Node at $XDG_DATA_HOME/oclif/node/node-custom, and echoes the command line under DEBUG=*. The
 * package's launcher runs itself, with the Node it carries, and shows no key given on the command line.
 */
async function runsOnlyItself(svc: string): Promise<void> {
  const env: Record<string, string> = { ...oldNodeEnv(), DEBUG: '*' };
  const marker = join(env.HOME!, 'ran');
  for (const path of [join(env.XDG_DATA_HOME!, 'svc', 'client', 'bin', 'svc'), join(env.XDG_DATA_HOME!, 'oclif', 'node', 'node-custom')]) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `#!/bin/sh\necho "$0" >> ${marker}\n`, { mode: 0o755 });
  }
  const result = await run(svc, ['reports', 'list', '--json', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--api-key', sandbox.keys.test], env);
  expect(existsSync(marker) ? readFileSync(marker, 'utf8') : '').toBe('');
  expect(result.status, result.stderr).toBe(0);
  expect(JSON.parse(result.stdout)).toMatchObject({ data: expect.any(Array) });
  expect(result.stdout + result.stderr).not.toContain(sandbox.keys.test);
}

describe.skipIf(!node || !canPack)('the self-contained builds, on a machine whose Node is 20', () => {
  it('the tarball, unpacked, runs svc on the Node it carries, and only itself', { timeout: 4 * HANG_MS }, async () => {
    const unpacked = mkdtempSync(join(tmpdir(), 'svc-tarball-'));
    execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
    await usedAsShipped(join(unpacked, 'svc', 'bin', 'svc'));
    await runsOnlyItself(join(unpacked, 'svc', 'bin', 'svc'));
  });

  it('the .deb, installed with dpkg, runs svc from /usr/bin, and only itself', { timeout: 4 * HANG_MS }, async () => {
    // dpkg's own root directory: the package installs as on a machine, leaving this one's untouched.
    const system = mkdtempSync(join(tmpdir(), 'svc-deb-root-'));
    for (const directory of ['info', 'updates', 'triggers']) mkdirSync(join(system, 'var', 'lib', 'dpkg', directory), { recursive: true });
    writeFileSync(join(system, 'var', 'lib', 'dpkg', 'status'), '');
    execFileSync('dpkg', [`--root=${system}`, '--force-script-chrootless', '--install', deb], { stdio: ['ignore', 'ignore', 'inherit'] });
    expect(execFileSync('dpkg', [`--root=${system}`, '--status', 'svc'], { encoding: 'utf8' })).toContain('Status: install ok installed');
    await usedAsShipped(join(system, 'usr', 'bin', 'svc'));
    await runsOnlyItself(join(system, 'usr', 'bin', 'svc'));
  });

  it('the .deb names its version as its file does, a version that sorts by the commit’s time; its maintainer and licence', () => {
    const version = execFileSync('dpkg-deb', ['--field', deb, 'Version'], { encoding: 'utf8' }).trim();
    expect(version).toMatch(new RegExp(`^${pjson.version.replace(/\./g, '\\.')}\\+git\\d{14}\\.[0-9a-f]{7,}-1$`));
    expect(basename(deb)).toBe(`svc_${version}_amd64.deb`);
    expect(basename(tarball)).toBe(`svc-v${version.replace(/-1$/, '')}-linux-x64.tar.gz`);
    const fields = execFileSync('dpkg-deb', ['--field', deb, 'Package', 'Maintainer', 'Architecture', 'Homepage'], { encoding: 'utf8' });
    expect(fields).toBe(`Package: svc\nMaintainer: ${pjson.author}\nArchitecture: amd64\n`);
    const copyright = execFileSync('dpkg-deb', ['--fsys-tarfile', deb], { maxBuffer: 1 << 30 });
    const listing = spawnSync('tar', ['-xO', './usr/share/doc/svc/copyright'], { input: copyright, encoding: 'utf8', maxBuffer: 1 << 30 });
    expect(listing.stdout).toContain(`Files: *\nCopyright: ${pjson.author}\nLicense: ${pjson.license}\n`);
  });
});
