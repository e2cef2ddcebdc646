/**
 * `svc keys rotate` in the test's process against a sandbox in the test's process, the two sharing
 * one clock: the drain's quiet period, polls and timeout pass on the test's time, each poll waiting
 * for the application's next request (pacedClock), so a rotation with the default quiet period of
 * 15 minutes takes a moment. Signals and a real terminal: rotate.binary.test.ts.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { redactKey } from '../../../src/core/redaction.js';
import { ExitCode } from '../../../src/core/errors.js';
import type { RotationRecord } from '../../../src/keys/journal.js';
import { pacedClock } from '../../helpers/clock.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { allKeys, createKeyWithAdmin, keyById, type RotationLine, startBackgroundClient } from './fixtures.js';

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
