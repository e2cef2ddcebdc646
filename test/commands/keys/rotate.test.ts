/**
 * `svc keys rotate` in the test's process against a sandbox in the test's process, the two sharing
 * one clock: the drain's quiet period, polls and timeout pass on the test's time, each poll waiting
 * for the application's next request (pacedClock), so a rotation with the default quiet period of
 * 15 minutes takes a moment. What only a process shows: Ctrl-C and a real terminal
 * (rotate.binary.test.ts), SIGKILL and --resume (rotate-resume.binary.test.ts), the lock between
 * processes (rotate-lock.binary.test.ts, rotate-concurrent.binary.test.ts); a service with no key
 * API: rotate-dashboard-key.test.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { redactKey } from '../../../src/core/redaction.js';
import { ExitCode } from '../../../src/core/errors.js';
import type { RotationRecord } from '../../../src/keys/journal.js';
import { pacedClock } from '../../helpers/clock.js';
import { type MutatingImplementation, type ProxyState, startMutatingImplementation, type Variant } from '../../helpers/mutating-implementation.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { type RewritingGateway, startRewritingGateway } from '../../helpers/rewriting-gateway.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { allKeys, createKeyWithAdmin, expectAdminKeyNeeded, keyById, keyStatuses, type RotationLine, startBackgroundClient } from './fixtures.js';

/** What each of the drain's polls waits for besides the time: the running application's next request, if any. */
let pace: () => Promise<void> = () => Promise.resolve();
const clock = pacedClock(() => pace());
let sandbox: InProcessSandbox;
let home: string;

beforeAll(async () => {
  sandbox = await startSandboxInProcess({ log: undefined, plan: 'enterprise', clock });
  home = sandbox.env.HOME!;
});
afterAll(() => sandbox.stop());
afterEach(() => {
  pace = () => Promise.resolve();
});

function svc(args: string[], extra: Record<string, string> = {}, whileRunning?: Parameters<typeof svcInProcess>[1]['whileRunning']) {
  return svcInProcess(args, { env: { ...sandbox.env, ...extra }, clock, whileRunning });
}

/** An application using the key in `file`, which the drain's polls wait for. */
function application(file: string) {
  const app = startBackgroundClient(sandbox, file);
  pace = () => app.nextAnswer();
  return app;
}

function jsonLines(stdout: string): RotationLine[] {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RotationLine);
}

function journal(id: string): RotationRecord {
  return JSON.parse(readFileSync(join(home, 'state', 'svc', 'rotations', `${id}.json`), 'utf8')) as RotationRecord;
}

async function appKey(name: string) {
  const key = await createKeyWithAdmin(sandbox, { name });
  const file = join(home, `${name}.key`);
  writeFileSync(file, `${key.secret}\n`, { mode: 0o600 });
  return { key, file };
}

describe('svc keys rotate', () => {
  it('takes a key made in the dashboard where the service has a key API too: no key is made, the drain judged by last use', async () => {
    const { key: old, file: appFile } = await appKey('dashboard given with key api');
    const { key: fresh, file: newFile } = await appKey('made in the dashboard');
    const app = application(appFile);
    const deploy = `umask 077 && cat > "${appFile}.new" && mv "${appFile}.new" "${appFile}"`;
    const keysBefore = (await allKeys(sandbox)).length;
    const result = await svc(['keys', 'rotate', old.id, '--new-key-file', newFile, '--new-key-id', fresh.id, '--deploy-cmd', deploy, '--yes', '--json'], {
      SVC_API_KEY: old.secret,
    });
    await app.stop();
    expect(result.code, result.stderr).toBe(0);
    const lines = jsonLines(result.stdout);
    expect(lines.find((line) => line.step === 'create')!.message).toContain('checked the given key');
    expect(lines.find((line) => line.step === 'drain')).toMatchObject({ evidence: 'last_use' });
    expect(lines.at(-1)).toMatchObject({ event: 'completed', old_key: old.id, new_key: fresh.id });
    expect((await allKeys(sandbox)).length).toBe(keysBefore);
    expect((await keyById(sandbox, old.id)).status).toBe('revoked');
    expect(readFileSync(newFile, 'utf8').trim()).toBe(fresh.secret);
    expect(app.authFailures()).toEqual([]);
  });

  it('rotates a key in use without a single failed request, the deploy command handing the new key to the application, after the default quiet period of 15 minutes', async () => {
    const { key: old, file: appFile } = await appKey('checkout service');
    const app = application(appFile);
    // The deploy reads the key from stdin and replaces the application's key file in one rename.
    const deploy = `umask 077 && cat > "${appFile}.new" && mv "${appFile}.new" "${appFile}"`;
    const result = await svc(['keys', 'rotate', old.id, '--deploy-cmd', deploy, '--yes', '--json'], { SVC_API_KEY: old.secret });
    await app.stop();

    expect(result.code, result.stderr).toBe(0);
    const lines = jsonLines(result.stdout);
    expect(lines.filter((line) => line.event === 'step_done').map((line) => line.step)).toEqual([
      'create',
      'save',
      'deploy',
      'verify',
      'drain',
      'revoke',
      'confirm',
    ]);
    const progress = lines.filter((line) => line.event === 'drain_progress');
    expect(progress.length).toBeGreaterThan(0);
    // Revoked once the old key had been silent for 15 minutes by the API's clock, and not before.
    expect(progress.at(-1)!.old_key_quiet_for_ms).toBeGreaterThanOrEqual(15 * 60_000);
    expect(progress.slice(0, -1).every((line) => (line.old_key_quiet_for_ms as number) < 15 * 60_000 || line.new_key_used === false)).toBe(true);
    const completed = lines.at(-1)!;
    expect(completed).toMatchObject({ event: 'completed', old_key: old.id });

    expect(app.authFailures()).toEqual([]);
    const newSecret = readFileSync(appFile, 'utf8').trim();
    expect(app.usedKeys()).toEqual([old.secret, newSecret]);
    expect((await keyById(sandbox, old.id)).status).toBe('revoked');
    expect((await keyById(sandbox, completed.new_key as string)).status).toBe('active');
    expect((await sandbox.fetch('/v1/reports?limit=1', { key: old.secret })).status).toBe(401);

    const record = journal(completed.rotation as string);
    expect(record.status).toBe('completed');
    expect(record.steps.confirm?.by).toBe('request');
    expect(record.steps.save?.to).toBe('deploy_cmd');
    const everything = JSON.stringify(record) + result.stdout + result.stderr;
    expect(everything).not.toContain(newSecret);
    expect(everything).not.toContain(old.secret);
    expect(statSync(join(home, 'state', 'svc', 'rotations', `${record.id}.json`)).mode & 0o777).toBe(0o600);
    // Its lock and the record of its holder go with the run once the rotation is complete.
    expect(readdirSync(join(home, 'state', 'svc', 'rotations')).filter((name) => name.startsWith(record.id))).toEqual([`${record.id}.json`]);
  });

  it('gives the deploy command the new key in SVC_NEW_API_KEY and its id in SVC_NEW_KEY_ID, and keeps its stdout off the JSON lines', async () => {
    const { key: old, file } = await appKey('env deploy');
    const app = application(file);
    const deploy = `echo "deploying $SVC_NEW_KEY_ID"; umask 077; printf '%s\\n' "$SVC_NEW_API_KEY" > "${file}.new" && mv "${file}.new" "${file}"`;
    const result = await svc(['keys', 'rotate', old.id, '--new-key-file', join(home, 'env-deploy.new.key'), '--deploy-cmd', deploy, '--yes', '--json']);
    await app.stop();
    expect(result.code, result.stderr).toBe(0);
    const completed = jsonLines(result.stdout).at(-1)!;
    expect(result.stderr).toContain(`deploying ${completed.new_key}`);
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(join(home, 'env-deploy.new.key'), 'utf8'));
    expect(app.authFailures()).toEqual([]);
  });

  it('is safe to run again once complete: it reports the same rotation and changes nothing', async () => {
    const { key: old, file } = await appKey('rerun');
    const app = application(file);
    const args = ['keys', 'rotate', old.id, '--new-key-file', file, '--yes', '--json'];
    const first = await svc(args);
    await app.stop();
    expect(first.code, first.stderr).toBe(0);
    const statuses = async () => (await allKeys(sandbox)).map((key) => `${key.id} ${key.status}`);
    const keysBefore = await statuses();
    const again = await svc(args);
    expect(again.code, again.stderr).toBe(0);
    expect(jsonLines(again.stdout)).toEqual([expect.objectContaining({ event: 'completed', rotation: jsonLines(first.stdout).at(-1)!.rotation })]);
    expect(await statuses()).toEqual(keysBefore);
  });

  it('prints the plan with --dry-run, keys redacted, and creates nothing', async () => {
    const { key: old, file } = await appKey('dry run');
    const before = (await allKeys(sandbox)).length;
    const human = await svc(['keys', 'rotate', old.id, '--new-key-file', file, '--dry-run']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`Rotating ${old.id} (${redactKey(old.secret)}) would:`);
    expect(human.stdout).toMatch(/7\. confirm/);
    const plan = JSON.parse((await svc(['keys', 'rotate', old.id, '--new-key-file', file, '--dry-run', '--json'])).stdout);
    expect(plan.steps).toHaveLength(7);
    expect(plan.old_key.prefix_hint).toBe(redactKey(old.secret));
    expect(JSON.stringify(plan) + human.stdout + human.stderr).not.toContain(old.secret);
    expect((await allKeys(sandbox)).length).toBe(before);
    expect((await svc(['keys', 'rotations', '--json'])).stdout).not.toContain(old.id);
  });
});

describe('the deploy command of svc keys rotate', () => {
  it("gets the new key and the environment that is not svc's, none of svc's secrets, and its output is redacted", async () => {
    const { key: old, file } = await appKey('deploy environment');
    const app = application(file);
    const webhookSecret = 'placeholder-webhook-secret-of-the-deploy-test';
    const result = await svc(['keys', 'rotate', old.id, '--new-key-file', file, '--deploy-cmd', 'set -x; env; echo "$SVC_NEW_API_KEY"', '--yes', '--json'], {
      SVC_API_KEY: old.secret,
      SVC_ADMIN_KEY: sandbox.keys.admin,
      SVC_WEBHOOK_SECRET: webhookSecret,
      DEPLOY_TARGET: 'staging-cluster',
    });
    await app.stop();
    expect(result.code, result.stderr).toBe(0);
    const newSecret = readFileSync(file, 'utf8').trim();
    const lines = result.stderr.split('\n');
    expect(lines).toContain(`SVC_NEW_API_KEY=${redactKey(newSecret)}`);
    expect(lines).toContain(`SVC_NEW_KEY_ID=${jsonLines(result.stdout).at(-1)!.new_key}`);
    expect(lines).toContain('DEPLOY_TARGET=staging-cluster');
    expect(lines).toContain(`+ echo ${redactKey(newSecret)}`);
    expect(lines).toContain(redactKey(newSecret));
    expect(
      lines
        .filter((line) => line.startsWith('SVC_'))
        .map((line) => line.split('=')[0])
        .sort(),
    ).toEqual(['SVC_NEW_API_KEY', 'SVC_NEW_KEY_ID']);
    for (const secret of [newSecret, old.secret, sandbox.keys.admin, webhookSecret]) {
      expect(result.stdout + result.stderr).not.toContain(secret);
    }
  });

  it('shows the start of a line it is still writing, and redacts a key it writes in two parts', async () => {
    const { key: old, file } = await appKey('deploy prompt');
    const app = application(file);
    const gate = join(home, 'deploy-prompt.gate');
    // Half of the key, then a wait that only the test ends, then the other half.
    const deploy = `printf 'deploying %.12s' "$SVC_NEW_API_KEY"; until [ -e "$DEPLOY_GATE" ]; do sleep 0.05; done; printf '%s done\\n' "\${SVC_NEW_API_KEY#????????????}"`;
    let whileWaiting = '';
    const result = await svc(
      ['keys', 'rotate', old.id, '--new-key-file', file, '--deploy-cmd', deploy, '--yes', '--json'],
      { DEPLOY_GATE: gate },
      async ({ stderr }) => {
        await expect.poll(stderr, { timeout: 60_000, interval: 20 }).toContain('deploying ');
        whileWaiting = stderr();
        writeFileSync(gate, '');
      },
    );
    await app.stop();
    expect(result.code, result.stderr).toBe(0);
    const newSecret = readFileSync(file, 'utf8').trim();
    expect(whileWaiting).not.toContain(newSecret.slice(0, 12));
    expect(result.stderr).toContain(`deploying ${redactKey(newSecret)} done\n`);
    expect(result.stderr).not.toContain(newSecret.slice(0, 12));
    expect(result.stderr).not.toContain(newSecret.slice(12));
  });

  it('does not wait for a process the deploy command leaves running with its output', async () => {
    const { key: old, file } = await appKey('deploy background');
    const app = application(file);
    const result = await svc(['keys', 'rotate', old.id, '--new-key-file', file, '--deploy-cmd', 'sleep 120 & echo "started $!"', '--yes', '--json']);
    await app.stop();
    const background = Number(/started (\d+)/.exec(result.stderr)?.[1]);
    if (background) process.kill(background);
    expect(result.code, result.stderr).toBe(0);
    expect(background).toBeGreaterThan(0);
    expect(jsonLines(result.stdout).at(-1)).toMatchObject({ event: 'completed', old_key: old.id });
  });
});

describe('the safety rails of svc keys rotate', () => {
  it('refuses a non-admin key, saying an admin key is needed', async () => {
    const { key: old, file } = await appKey('not admin');
    const result = await svc(['keys', 'rotate', old.id, '--new-key-file', file, '--yes'], { SVC_ADMIN_KEY: sandbox.keys.test });
    expect(result.code).toBe(ExitCode.permission);
    expect(result.stderr).toContain('is a test key');
    expect(result.stderr).toContain('key management needs an admin key');
  });

  it('refuses to rotate the admin key doing the revoking, before anything is created', async () => {
    const admin = (await allKeys(sandbox)).find((key) => key.prefix_hint === redactKey(sandbox.keys.admin))!;
    const before = (await allKeys(sandbox)).length;
    const result = await svc(['keys', 'rotate', admin.id, '--new-key-file', join(home, 'admin.key'), '--yes', '--json']);
    expect(result.code).toBe(ExitCode.refused);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'revoking_own_key' });
    expect((await allKeys(sandbox)).length).toBe(before);
  });

  it('refuses without a destination for the new secret, and without --yes or a deploy command when there is no terminal', async () => {
    const { key: old, file } = await appKey('no destination');
    const before = (await allKeys(sandbox)).length;
    const nowhere = await svc(['keys', 'rotate', old.id, '--yes']);
    expect(nowhere.code).toBe(ExitCode.usage);
    expect(nowhere.stderr).toContain('the new secret needs a destination');
    const unattended = await svc(['keys', 'rotate', old.id, '--new-key-file', file]);
    expect(unattended.code).toBe(ExitCode.usage);
    expect(unattended.stderr).toContain('there is no terminal');
    expect((await allKeys(sandbox)).length).toBe(before);
  });

  it('does not revoke while the old key still has traffic: exit 13 when --timeout passes, then --resume --force revokes', async () => {
    const { key: old, file } = await appKey('still busy');
    const busy = application(file);
    const newFile = join(home, 'still-busy.new.key');
    const sleptBefore = clock.slept.length;
    const timedOut = await svc(['keys', 'rotate', old.id, '--new-key-file', newFile, '--timeout', '10m', '--yes', '--json']);
    expect(timedOut.code, timedOut.stderr).toBe(ExitCode.drainTimedOut);
    // It polled every 30 s (the default) for the 10 minutes, the application using the old key all along.
    expect(clock.slept.slice(sleptBefore).reduce((sum, ms) => sum + ms, 0)).toBe(10 * 60_000);
    const lines = jsonLines(timedOut.stdout);
    expect(lines.at(-1)!.error).toMatchObject({ code: 'drain_timed_out', exit_code: 13 });
    expect(timedOut.stderr).toContain(`${old.id} was used`);
    expect((await keyById(sandbox, old.id)).status).toBe('active');
    expect(busy.authFailures()).toEqual([]);

    const rotation = lines[0]!.rotation as string;
    expect(journal(rotation).steps.drain).toBeUndefined();
    const forced = await svc(['keys', 'rotate', '--resume', rotation, '--force', '--json']);
    await busy.stop();
    expect(forced.code, forced.stderr).toBe(0);
    expect(journal(rotation).steps.drain?.forced).toBe(true);
    expect((await keyById(sandbox, old.id)).status).toBe('revoked');
  });

  it('does not go on when the new key fails verification: exit 14, the old key untouched', async () => {
    const { key: old, file } = await appKey('fails verification');
    // A deploy that breaks the new key: it revokes it with the admin key.
    const revoker = join(home, 'revoke-new-key.mjs');
    writeFileSync(
      revoker,
      `const answer = await fetch(process.env.TEST_BASE_URL + '/v1/keys/' + process.env.SVC_NEW_KEY_ID, { method: 'DELETE', headers: { authorization: 'Bearer ' + process.env.TEST_ADMIN_KEY } });
process.exit(answer.ok ? 0 : 1);
`,
    );
    const result = await svc(
      ['keys', 'rotate', old.id, '--new-key-file', join(home, 'fails.new.key'), '--deploy-cmd', `"${process.execPath}" "${revoker}"`, '--yes', '--json'],
      {
        TEST_BASE_URL: sandbox.url,
        TEST_ADMIN_KEY: sandbox.keys.admin,
        NODE_EXTRA_CA_CERTS: sandbox.caCert,
      },
    );
    expect(result.code, result.stderr).toBe(ExitCode.rotationStepFailed);
    const lines = jsonLines(result.stdout);
    expect(lines.at(-1)!.error).toMatchObject({ code: 'verification_failed' });
    expect((await keyById(sandbox, old.id)).status).toBe('active');
    expect(journal(lines[0]!.rotation as string).steps.verify).toBeUndefined();
    expect(readFileSync(file, 'utf8').trim()).toBe(old.secret);
  });

  it('passes verification for a key locked to other addresses, the API having recognised it', async () => {
    const locked = await createKeyWithAdmin(sandbox, { name: 'locked', allowed_ips: ['192.0.2.77'] });
    const result = await svc(['keys', 'rotate', locked.id, '--new-key-file', join(home, 'locked.new.key'), '--timeout', '10m', '--yes', '--json']);
    // Nothing can use the new key from 127.0.0.1, so the drain waits in vain: verified, not revoked.
    expect(result.code, result.stderr).toBe(ExitCode.drainTimedOut);
    const lines = jsonLines(result.stdout);
    const record = journal(lines[0]!.rotation as string);
    expect(record.steps.verify?.ip_locked).toBe(true);
    const newKey = await keyById(sandbox, record.steps.create!.new_key.id!);
    expect(newKey.allowed_ips).toEqual(['192.0.2.77']);
    expect((await keyById(sandbox, locked.id)).status).toBe('active');
  });

  it('does not count the verification request as the application using the new key', async () => {
    const { key: old, file } = await appKey('verify only');
    // Nobody uses the new key: the old key is silent (never used), but the verification alone must not end the drain.
    const result = await svc(['keys', 'rotate', old.id, '--new-key-file', join(home, 'verify-only.new.key'), '--timeout', '10m', '--yes', '--json']);
    expect(result.code, result.stderr).toBe(ExitCode.drainTimedOut);
    const progress = jsonLines(result.stdout).filter((line) => line.event === 'drain_progress');
    expect(progress.length).toBeGreaterThan(3);
    expect(progress.every((line) => line.new_key_used === false && line.old_key_quiet_for_ms === null)).toBe(true);
    expect(result.stderr).toContain('the new key has not been used since the verification');
    expect((await keyById(sandbox, old.id)).status).toBe('active');
    expect(readFileSync(file, 'utf8').trim()).toBe(old.secret);
  });
});

/** The rails around what `keys rotate` is given (a key made elsewhere, a journal edited by someone else). */
let count = 0;
/** A key of the sandbox's workspace to rotate, and the files of a rotation of it. */
async function railsRotation(body: Record<string, unknown> = {}) {
  const name = `rails ${++count}`;
  const old = await createKeyWithAdmin(sandbox, { name, ...body });
  const home = sandbox.env.HOME!;
  const deployed = join(home, `${count}.deployed`);
  return { old, newFile: join(home, `${count}.new.key`), deployed, deploy: `cat > "${deployed}"` };
}

const rotate = (args: string[], apiKey: string) => svc(['keys', 'rotate', ...args, '--yes', '--json'], { SVC_API_KEY: apiKey });

describe('a key given in --new-key-file', () => {
  it("of another workspace is refused where the key API shows the workspace's keys, before anything is deployed or revoked", async () => {
    const { old, newFile, deployed, deploy } = await railsRotation();
    writeFileSync(newFile, `${sandbox.keys.other_workspace}\n`, { mode: 0o600 });
    const result = await rotate([old.id, '--new-key-file', newFile, '--deploy-cmd', deploy, '--drain-wait', '1s'], old.secret);
    expect(result.code, result.stderr).toBe(ExitCode.rotationStepFailed);
    expect(result.stderr).toContain(`is not among the keys of ${old.id}'s workspace that the key API shows`);
    expect(existsSync(deployed)).toBe(false);
    expect((await keyById(sandbox, old.id)).status).toBe('active');
  });

  it('with another scope than the old key is refused, and taken with --allow-scope-change', async () => {
    const { old, newFile, deployed, deploy } = await railsRotation();
    const readOnly = await createKeyWithAdmin(sandbox, { name: `read-only ${count}`, read_only: true });
    writeFileSync(newFile, `${readOnly.secret}\n`, { mode: 0o600 });
    const refused = await rotate([old.id, '--new-key-file', newFile, '--deploy-cmd', deploy, '--drain-wait', '1s'], old.secret);
    expect(refused.code, refused.stderr).toBe(ExitCode.rotationStepFailed);
    expect(refused.stderr).toContain(`has another scope than ${old.id}: read-only, any IP, where the old key is read-write, any IP`);
    expect(existsSync(deployed)).toBe(false);

    const taken = await rotate([old.id, '--new-key-file', newFile, '--deploy-cmd', 'false', '--drain-wait', '1s', '--allow-scope-change'], old.secret);
    expect(jsonLines(taken.stdout).find((line) => line.step === 'create')).toMatchObject({ event: 'step_done' });
  });
});

/** Each object of an answer without the fields named. */
const without =
  (...names: string[]) =>
  (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(without(...names));
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([name]) => !names.includes(name))
        .map(([name, item]) => [name, without(...names)(item)]),
    );
  };

/** The sandbox behind a gateway whose key answers leave out fields the specification does not show. */
describe.each([
  // Nothing shows the key's workspace: not the key API (no hint to find it by), not the reports (the old key may not list them).
  {
    shows: 'no prefix_hint',
    fields: ['prefix_hint'],
    refusal: (old: string) => `could not be shown to be of ${old}'s workspace (not compared: `,
    withFlags: 'deployed',
  },
  // The key API shows the workspace's keys by their hint: the given key is not among them, whatever the flags.
  {
    shows: 'no scope (read_only, allowed_ips)',
    fields: ['read_only', 'allowed_ips'],
    refusal: (old: string) => `is not among the keys of ${old}'s workspace that the key API shows`,
    withFlags: 'refused',
  },
])('a key API that shows $shows', ({ fields, refusal, withFlags }) => {
  let gateway: RewritingGateway;
  beforeAll(async () => {
    gateway = await startRewritingGateway(sandbox, { answer: without(...fields) });
  });
  afterAll(() => gateway.close());

  /** svc through the gateway, in a home of its own. */
  const rotateThrough = (args: string[], apiKey: string) =>
    svcInProcess(['keys', 'rotate', ...args, '--yes', '--json'], {
      env: isolatedEnv({ SVC_BASE_URL: gateway.url, SVC_API_KEY: apiKey, SVC_ADMIN_KEY: sandbox.keys.admin }),
      clock,
    });
  const allowAll = ['--allow-unverified-workspace', '--allow-scope-change'];

  it(`an IP-locked old key given another workspace's key: refused before anything is deployed; with the flags that say what svc could not establish, ${withFlags}`, async () => {
    const { old, newFile, deployed, deploy } = await railsRotation({ allowed_ips: ['203.0.113.7'] });
    writeFileSync(newFile, `${sandbox.keys.other_workspace}\n`, { mode: 0o600 });
    const refused = await rotateThrough([old.id, '--new-key-file', newFile, '--deploy-cmd', deploy, '--drain-wait', '1s'], old.secret);
    expect(refused.code, refused.stderr).toBe(ExitCode.rotationStepFailed);
    expect(refused.stderr).toContain(refusal(old.id));
    expect(existsSync(deployed)).toBe(false);
    expect((await keyById(sandbox, old.id)).status).toBe('active');

    const flagged = await rotateThrough([old.id, '--new-key-file', newFile, '--deploy-cmd', deploy, '--drain-wait', '1s', ...allowAll], old.secret);
    expect(existsSync(deployed), flagged.stderr).toBe(withFlags === 'deployed');
  });

  it('a read-only key given for a read-write one: refused, as a write that cannot succeed shows it read-only (the sandbox checks the scope first), and taken with the flags', async () => {
    const { old, newFile, deployed, deploy } = await railsRotation();
    const readOnly = await createKeyWithAdmin(sandbox, { name: `read-only ${count}`, read_only: true });
    writeFileSync(newFile, `${readOnly.secret}\n`, { mode: 0o600 });
    const reportIds = async () =>
      ((await (await sandbox.fetch('/v1/reports?limit=100', { key: old.secret })).json()) as { data: Array<{ id: string }> }).data.map((report) => report.id);
    const reportsBefore = await reportIds();
    const refused = await rotateThrough([old.id, '--new-key-file', newFile, '--deploy-cmd', deploy, '--drain-wait', '1s'], old.secret);
    expect(refused.code, refused.stderr).toBe(ExitCode.rotationStepFailed);
    expect(refused.stderr).toContain(
      `has another scope than ${old.id}: read-only, where ${old.id} is read-write, as a DELETE of a report that does not exist shows (`,
    );
    // The write deleted nothing: the report it named does not exist.
    expect(await reportIds()).toEqual(reportsBefore);
    expect(refused.stderr).toContain('--allow-scope-change');
    expect(existsSync(deployed)).toBe(false);

    const taken = await rotateThrough([old.id, '--new-key-file', newFile, '--deploy-cmd', deploy, '--drain-wait', '1s', ...allowAll], old.secret);
    expect(existsSync(deployed), taken.stderr).toBe(true);
  });
});

describe('a key API that shows no scope (read_only, allowed_ips)', () => {
  let gateway: RewritingGateway;
  beforeAll(async () => {
    gateway = await startRewritingGateway(sandbox, { answer: without('read_only', 'allowed_ips') });
  });
  afterAll(() => gateway.close());

  it('gets no key made without --allow-scope-change (svc cannot give it the old scope), and with it a rotation that completes', async () => {
    const { old, newFile } = await railsRotation({ read_only: true });
    const env = isolatedEnv({ SVC_BASE_URL: gateway.url, SVC_API_KEY: old.secret, SVC_ADMIN_KEY: sandbox.keys.admin });
    const before = (await allKeys(sandbox)).length;
    const refused = await svcInProcess(['keys', 'rotate', old.id, '--new-key-file', newFile, '--deploy-cmd', 'true', '--yes', '--json'], { env, clock });
    expect(refused.code, refused.stderr).toBe(ExitCode.rotationStepFailed);
    expect(refused.stderr).toContain(`the service shows no scope (read-only, IP list) of ${old.id}`);
    expect((await allKeys(sandbox)).length, 'keys created').toBe(before);

    // The application re-reads its key file: the deploy replaces it, and its use of the new key ends the drain.
    writeFileSync(newFile, `${old.secret}\n`, { mode: 0o600 });
    const app = application(newFile);
    const taken = await svcInProcess(['keys', 'rotate', old.id, '--deploy-cmd', 'true', '--allow-scope-change', '--yes', '--json'], { env, clock });
    await app.stop();
    expect(taken.code, taken.stderr).toBe(0);
    expect((await allKeys(sandbox)).length, 'keys created').toBe(before + 1);
  });
});

describe('a journal', () => {
  /** A rotation stopped at its deploy (a command that fails), its key made and saved, and its journal. */
  async function stopped() {
    const { old, newFile } = await railsRotation();
    const result = await rotate([old.id, '--new-key-file', newFile, '--deploy-cmd', 'false'], old.secret);
    expect(result.code, result.stderr).toBe(ExitCode.rotationStepFailed);
    const id = String(jsonLines(result.stdout)[0]!.rotation);
    const file = join(sandbox.env.HOME!, 'state', 'svc', 'rotations', `${id}.json`);
    return { old, id, file, record: JSON.parse(readFileSync(file, 'utf8')) as RotationRecord };
  }

  it('edited to name the admin key as the old key: the resumed run refuses (exit 15) and revokes nothing', async () => {
    const { old, id, file, record } = await stopped();
    const adminKey = (await allKeys(sandbox)).find((key) => key.prefix_hint === redactKey(sandbox.keys.admin))!;
    record.old_key.id = adminKey.id;
    writeFileSync(file, JSON.stringify(record), { mode: 0o600 });
    const resumed = await rotate(['--resume', id, '--deploy-cmd', 'true', '--force'], old.secret);
    expect(resumed.code, resumed.stderr).toBe(ExitCode.refused);
    expect(JSON.parse(resumed.stdout.trim().split('\n').at(-1)!).error).toMatchObject({ code: 'revoking_own_key' });
    expect((await keyById(sandbox, adminKey.id)).status).toBe('active');
  });

  it('edited to say the service has no key API (key_api: false) and to name the admin key: the resumed run reads the key all the same, refuses (exit 15) and revokes nothing', async () => {
    const { old, id, file, record } = await stopped();
    const adminKey = (await allKeys(sandbox)).find((key) => key.prefix_hint === redactKey(sandbox.keys.admin))!;
    record.old_key.id = adminKey.id;
    record.key_api = false;
    writeFileSync(file, JSON.stringify(record), { mode: 0o600 });
    const resumed = await rotate(['--resume', id, '--deploy-cmd', 'true', '--drain-wait', '1s'], old.secret);
    expect(resumed.code, resumed.stderr).toBe(ExitCode.refused);
    expect(JSON.parse(resumed.stdout.trim().split('\n').at(-1)!).error).toMatchObject({ code: 'revoking_own_key' });
    expect((await keyById(sandbox, adminKey.id)).status).toBe('active');
  });

  it('edited to make another key of the workspace its new key: --abort refuses (exit 15) and that key stays active', async () => {
    const { old, id, file, record } = await stopped();
    const other = await createKeyWithAdmin(sandbox, { name: `the billing service ${count}` });
    record.steps.create!.new_key.id = other.id;
    // As a run that stopped before its deploy started: an abort revokes the new key.
    delete record.attempts.deploy;
    writeFileSync(file, JSON.stringify(record), { mode: 0o600 });
    const aborted = await rotate(['--abort', id], old.secret);
    expect(aborted.code, aborted.stderr).toBe(ExitCode.refused);
    expect(aborted.stderr).toContain(`made ${other.id} under the name "${record.new_key_name}", and the service shows it as "the billing service ${count}"`);
    expect((await keyById(sandbox, other.id)).status).toBe('active');
  });

  it("edited to give its new key another key's name: --abort refuses (exit 10) and that key stays active", async () => {
    const { old, id, file, record } = await stopped();
    const other = await createKeyWithAdmin(sandbox, { name: `the billing service ${count}` });
    const original = structuredClone(record);
    // As a run that stopped between making its key and recording it: an abort revokes the keys of the new key's name.
    record.new_key_name = other.name!;
    record.steps = {};
    record.attempts = { create: record.attempts.create! };
    writeFileSync(file, JSON.stringify(record), { mode: 0o600 });
    const aborted = await rotate(['--abort', id], old.secret);
    expect(aborted.code, aborted.stderr).toBe(ExitCode.config);
    expect(aborted.stderr).toContain(`new_key_name does not end with " (rotation ${id} of ${old.id})"`);
    expect((await keyById(sandbox, other.id)).status).toBe('active');
    writeFileSync(file, JSON.stringify(original), { mode: 0o600 });
  });

  it('that svc would not have written (a key id without its prefix, steps out of order) is refused (exit 10), naming what is wrong', async () => {
    const { old, id, file, record } = await stopped();
    for (const [edit, problem] of [
      [(r: RotationRecord) => void (r.old_key.id = 'admin'), 'old_key.id is not a key id (key_…)'],
      [(r: RotationRecord) => void delete r.steps.save, 'its steps are not done in order'],
      [(r: RotationRecord) => void (r.base_url = 'not a url'), 'base_url is not a URL'],
      [(r: RotationRecord) => void (r.steps.create!.new_key.prefix_hint = 'svc_live_…a1b2'), 'steps.create.new_key.prefix_hint is not a test key'],
      [(r: RotationRecord) => void (r.key_api = 'no' as unknown as boolean), 'key_api is not true or false'],
      [(r: RotationRecord) => void (r.steps.save = {} as RotationRecord['steps']['save']), 'a step is not recorded with the time it was done'],
    ] as const) {
      const edited = structuredClone(record);
      edit(edited);
      if (edited.steps.create && !edited.steps.save) edited.steps.deploy = { at: new Date().toISOString(), by: 'command' };
      writeFileSync(file, JSON.stringify(edited), { mode: 0o600 });
      const resumed = await rotate(['--resume', id, '--deploy-cmd', 'true'], old.secret);
      expect(resumed.code, resumed.stderr).toBe(ExitCode.config);
      expect(resumed.stderr).toContain(problem);
    }
    expect((await keyById(sandbox, old.id)).status).toBe('active');
    writeFileSync(file, JSON.stringify(record), { mode: 0o600 });
  });
});

/** Each object of an answer with its `prefix_hint` rewritten by `hint` (undefined: left out). */
function rewritingHints(hint: (value: unknown) => unknown) {
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    const { prefix_hint: shown, ...rest } = value as Record<string, unknown>;
    const rewritten = 'prefix_hint' in value ? hint(shown) : undefined;
    return {
      ...Object.fromEntries(Object.entries(rest).map(([name, item]) => [name, rewrite(item)])),
      ...(rewritten !== undefined && { prefix_hint: rewritten }),
    };
  };
  return rewrite;
}

describe.each([
  ['no prefix_hint at all', () => undefined],
  ['a prefix_hint in another form', (shown: unknown) => `${String(shown).replace('…', '')}****`],
])('a key API that shows %s', (_name, hint) => {
  let gateway: RewritingGateway;
  beforeAll(async () => {
    gateway = await startRewritingGateway(sandbox, { answer: rewritingHints(hint) });
  });
  afterAll(() => gateway.close());

  it('rotates with one key made, kept and deployed: none taken for lost, nothing said of "(undefined)"', async () => {
    const name = `hintless ${randomName()}`;
    const old = await createKeyWithAdmin(sandbox, { name });
    const appFile = join(sandbox.env.HOME!, `${name}.key`);
    writeFileSync(appFile, `${old.secret}\n`, { mode: 0o600 });
    const app = application(appFile);
    const deploy = `umask 077 && cat > "${appFile}.new" && mv "${appFile}.new" "${appFile}"`;
    const before = new Set((await allKeys(sandbox)).map((key) => key.id));
    const { SVC_PROFILE: _, ...user } = sandbox.env;
    const result = await svcInProcess(['keys', 'rotate', old.id, '--deploy-cmd', deploy, '--yes', '--json'], {
      env: { ...user, SVC_BASE_URL: gateway.url, SVC_API_KEY: old.secret, SVC_ADMIN_KEY: sandbox.keys.admin },
      clock,
    });
    await app.stop();
    const made = (await allKeys(sandbox)).filter((key) => !before.has(key.id));
    expect(
      made.map((key) => key.status),
      'keys made by the rotation',
    ).toEqual(['active']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as RotationLine);
    expect(lines.filter((line) => line.event === 'new_key_replaced')).toEqual([]);
    expect(lines.at(-1)).toMatchObject({ event: 'completed', old_key: old.id, new_key: made[0]!.id });
    expect(result.stdout + result.stderr).not.toContain('undefined');
    expect(app.authFailures()).toEqual([]);
  });

  it("a run that resumes after an interruption between making the key and recording it, unable to tell whether the saved secret is that key's, stops (exit 14) and keeps it", async () => {
    const name = `interrupted ${randomName()}`;
    const old = await createKeyWithAdmin(sandbox, { name });
    const newFile = join(sandbox.env.HOME!, `${name}.new.key`);
    const { SVC_PROFILE: _, ...user } = sandbox.env;
    const env = { ...user, SVC_BASE_URL: gateway.url, SVC_API_KEY: old.secret, SVC_ADMIN_KEY: sandbox.keys.admin };
    // A deploy that fails stops the run after the key was made and its secret saved.
    const stopped = await svcInProcess(['keys', 'rotate', old.id, '--new-key-file', newFile, '--deploy-cmd', 'false', '--yes', '--json'], { env, clock });
    expect(stopped.code, stopped.stderr).toBe(ExitCode.rotationStepFailed);
    const rotation = String((JSON.parse(stopped.stdout.split('\n')[0]!) as RotationLine).rotation);
    // As the journal of a run killed after POST /v1/keys answered and before it recorded the key.
    const journalFile = join(sandbox.env.HOME!, 'state', 'svc', 'rotations', `${rotation}.json`);
    const record = JSON.parse(readFileSync(journalFile, 'utf8')) as RotationRecord;
    const made = record.steps.create!.new_key.id!;
    record.steps = {};
    record.attempts = { create: record.attempts.create ?? new Date().toISOString() };
    writeFileSync(journalFile, JSON.stringify(record), { mode: 0o600 });
    const keysBefore = await allKeys(sandbox);
    const saved = readFileSync(newFile, 'utf8');

    const resumed = await svcInProcess(['keys', 'rotate', '--resume', rotation, '--deploy-cmd', 'true', '--yes', '--json'], { env, clock });
    expect(resumed.code, resumed.stderr).toBe(ExitCode.rotationStepFailed);
    expect(resumed.stdout).toContain(`${made}, made by an interrupted run, may be the key whose secret ${newFile} holds`);
    const keysAfter = await allKeys(sandbox);
    expect(keysAfter.length, 'keys created').toBe(keysBefore.length);
    expect(keysAfter.filter((key) => key.status === 'revoked').length, 'keys revoked').toBe(keysBefore.filter((key) => key.status === 'revoked').length);
    expect(keysAfter.find((key) => key.id === made)?.status).toBe('active');
    expect(readFileSync(newFile, 'utf8'), 'the saved secret').toBe(saved);
    expect(resumed.stdout + resumed.stderr).not.toContain('undefined');
  });

  it('says nothing of "(undefined)" to people: the plan of --dry-run, the steps, `keys rotations`', async () => {
    const name = `people ${randomName()}`;
    const old = await createKeyWithAdmin(sandbox, { name });
    const newFile = join(sandbox.env.HOME!, `${name}.new.key`);
    const { SVC_PROFILE: _, ...user } = sandbox.env;
    const env = { ...user, SVC_BASE_URL: gateway.url, SVC_API_KEY: old.secret, SVC_ADMIN_KEY: sandbox.keys.admin };
    const plan = await svcInProcess(['keys', 'rotate', old.id, '--new-key-file', newFile, '--dry-run'], { env, clock });
    // A deploy that fails stops the run after its first steps.
    const stopped = await svcInProcess(['keys', 'rotate', old.id, '--new-key-file', newFile, '--deploy-cmd', 'false', '--yes'], { env, clock });
    const listed = await svcInProcess(['keys', 'rotations'], { env, clock });
    expect([plan.code, stopped.code, listed.code]).toEqual([0, ExitCode.rotationStepFailed, 0]);
    for (const output of [plan, stopped, listed]) {
      expect(output.stdout + output.stderr).toContain(old.id);
      expect(output.stdout + output.stderr).not.toContain('undefined');
    }
  });
});

function randomName(): string {
  return Math.random().toString(36).slice(2, 10);
}

const UTC_Z = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?)Z$/;

/** Every `…Z` timestamp of a JSON value written with `+00:00` instead. */
function withOffsets(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(UTC_Z, '$1+00:00');
  if (Array.isArray(value)) return value.map(withOffsets);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, withOffsets(item)]));
  return value;
}

const KEY_ANSWERS: Variant = {
  name: 'other-key-answers',
  change: 'DELETE /v1/keys/{id} answers 204 without a body; timestamps end in +00:00',
  breaks: [],
  response(response, request) {
    response.json = withOffsets(response.json);
    if (request.method === 'DELETE' && request.path.startsWith('/v1/keys/') && response.status < 300) {
      response.status = 204;
      response.json = undefined;
    }
  },
};

describe('against DELETE /v1/keys/{id} answering 204 without a body, and +00:00 timestamps', () => {
  let implementation: MutatingImplementation;
  beforeAll(async () => {
    const state: ProxyState = { keys: sandbox.keys, created: new Map(), revoked: new Set(), applicants: new Map(), secret: sandbox.keys.webhook_secret };
    implementation = await startMutatingImplementation(sandbox, KEY_ANSWERS, state);
  });
  afterAll(() => implementation.close());

  it('keys rotate completes, the drain judged by +00:00 timestamps, the revocation recorded without a time', async () => {
    const old = await createKeyWithAdmin(sandbox, { name: 'rotated on another implementation' });
    const file = join(sandbox.env.HOME!, 'other-implementation.key');
    writeFileSync(file, `${old.secret}\n`, { mode: 0o600 });
    const app = application(file);
    const result = await svc(['keys', 'rotate', old.id, '--new-key-file', file, '--yes', '--json'], {
      SVC_API_KEY: old.secret,
      SVC_ADMIN_KEY: sandbox.keys.admin,
      SVC_BASE_URL: implementation.baseUrl,
      SVC_CA_CERT: implementation.caCertPath,
    });
    await app.stop();
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.event === 'step_done').map((line) => line.step)).toEqual([
      'create',
      'save',
      'deploy',
      'verify',
      'drain',
      'revoke',
      'confirm',
    ]);
    expect(lines.find((line) => line.event === 'drain_progress')).toMatchObject({ old_key_last_used_at: expect.stringMatching(/\+00:00$/) });
    expect(lines.find((line) => line.step === 'revoke')).toMatchObject({ message: `revoked ${old.id}` });
    expect((await keyById(sandbox, old.id)).status).toBe('revoked');
    const rotation = String(lines.at(-1)!.rotation);
    const record = JSON.parse(readFileSync(join(sandbox.env.HOME!, 'state', 'svc', 'rotations', `${rotation}.json`), 'utf8')) as RotationRecord;
    expect(record.steps.revoke).toMatchObject({ revoked_at: null });
    expect(app.authFailures()).toEqual([]);
  });
});

describe('svc keys rotate, before it changes anything', () => {
  it('says clearly that it needs the admin key when given another', () =>
    expectAdminKeyNeeded(sandbox, svc, ['keys', 'rotate', 'key_any', '--new-key-file', '/tmp/never-written.key', '--yes']));

  // A run that spins (as svc did on a path under /proc) never returns: the test's timeout fails it.
  it('refuses a --new-key-file it cannot write before it makes a key or a journal, and returns', async () => {
    const old = await createKeyWithAdmin(sandbox, { name: 'rotated to /proc' });
    const before = await keyStatuses(sandbox);
    const rotations = join(home, 'state', 'svc', 'rotations');
    const journalsBefore = existsSync(rotations) ? readdirSync(rotations).filter((name) => name.startsWith('rot_')) : [];
    const result = await svc(['keys', 'rotate', old.id, '--new-key-file', '/proc/no-such-dir/key', '--yes', '--json']);
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    expect(JSON.parse(result.stdout).error).toMatchObject({
      code: 'secret_file_unwritable',
      hint: 'give --new-key-file a path in a directory you can write to',
    });
    expect(await keyStatuses(sandbox)).toEqual(before);
    // The rotation's lock is taken before anything is planned; no journal is written.
    expect(existsSync(rotations) ? readdirSync(rotations).filter((name) => name.startsWith('rot_')) : []).toEqual(journalsBefore);
  });
});
