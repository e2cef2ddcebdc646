/**
 * The rotation store in-process, against a real PostgreSQL started for this file: how its setting is given
 * (flag, variable, profile) and kept secret, and a rotation recorded there, not in the state directory,
 * taken up from another. Runners of their own, a lock lost, a runner killed: rotate-shared-store.binary.test.ts.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import type { RotationRecord } from '../../../src/keys/journal.js';
import { pacedClock } from '../../helpers/clock.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { createKeyWithAdmin, keyById, type RotationLine, startBackgroundClient } from './fixtures.js';

let pace: () => Promise<void> = () => Promise.resolve();
const clock = pacedClock(() => pace());
let pg: TestPostgres;
let sandbox: InProcessSandbox;

beforeAll(async () => {
  pg = startPostgres();
  sandbox = await startSandboxInProcess({ log: undefined, plan: 'enterprise', clock });
});
afterAll(async () => {
  await sandbox?.stop();
  pg?.destroy();
});

function svc(args: string[], extra: Record<string, string> = {}, input?: string) {
  return svcInProcess(args, { env: { ...sandbox.env, ...extra }, clock, input });
}

const stateOf = (name: string) => join(sandbox.env.HOME!, `state-of-${name}`);

describe('the rotation store setting', () => {
  it('is read from the profile (set from stdin), shown without its password, and --rotation-store on the command line is warned of', async () => {
    const set = await svc(['config', 'set', 'rotation_store', '--profile', 'sandbox'], {}, pg.url('from_profile'));
    expect(set.code, set.stderr).toBe(0);
    const listed = await svc(['config', 'list', '--profile', 'sandbox']);
    expect(listed.stdout).toContain('postgres://svc:…@localhost/postgres');
    expect(listed.stdout + listed.stderr).not.toContain(pg.password);

    const fromProfile = await svc(['keys', 'rotations', '--json']);
    expect(fromProfile.code, fromProfile.stderr).toBe(0);
    expect(JSON.parse(fromProfile.stdout)).toEqual([]);
    expect(pg.psql("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'from_profile' AND table_name = 'rotations'")).toBe('1');

    const onArgv = await svc(['keys', 'rotations', '--rotation-store', pg.url('from_flag')]);
    expect(onArgv.code, onArgv.stderr).toBe(0);
    expect(onArgv.stderr).toContain('a password given in --rotation-store is visible to other local users');
    expect(onArgv.stdout + onArgv.stderr).not.toContain(pg.password);
    await svc(['config', 'unset', 'rotation_store', '--profile', 'sandbox']);
  });

  it('is refused (exit 10) when it is not a postgres:// connection string, naming where it came from', async () => {
    const refused = await svc(['keys', 'rotations', '--json'], { SVC_ROTATION_STORE: '/var/lib/svc/rotations' });
    expect(refused.code, refused.stderr).toBe(ExitCode.config);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'invalid_store', message: expect.stringContaining('from SVC_ROTATION_STORE') });
  });
});

describe('a rotation recorded in the rotation store', () => {
  it('is written there and not in the state directory, listed and resumed from another state directory', async () => {
    const old = await createKeyWithAdmin(sandbox, { name: 'recorded in the store' });
    const appFile = join(sandbox.env.HOME!, 'recorded.app.key');
    writeFileSync(appFile, `${old.secret}\n`, { mode: 0o600 });
    const store = { SVC_ROTATION_STORE: pg.url() };
    // A deploy that fails stops the run after the key was made and its secret saved.
    const stopped = await svc(['keys', 'rotate', old.id, '--new-key-file', appFile, '--deploy-cmd', 'false', '--yes', '--json'], {
      ...store,
      XDG_STATE_HOME: stateOf('first'),
    });
    expect(stopped.code, stopped.stderr).toBe(ExitCode.rotationStepFailed);
    const rotation = String((JSON.parse(stopped.stdout.split('\n')[0]!) as RotationLine).rotation);
    expect(existsSync(join(stateOf('first'), 'svc', 'rotations', `${rotation}.json`))).toBe(false);

    const listed = JSON.parse((await svc(['keys', 'rotations', '--json'], { ...store, XDG_STATE_HOME: stateOf('second') })).stdout) as RotationRecord[];
    expect(listed).toEqual([expect.objectContaining({ id: rotation, status: 'in_progress', steps: expect.objectContaining({ save: expect.anything() }) })]);

    const app = startBackgroundClient(sandbox, appFile);
    pace = () => app.nextAnswer();
    const resumed = await svc(['keys', 'rotate', '--resume', rotation, '--deploy-cmd', 'true', '--yes', '--json'], {
      ...store,
      XDG_STATE_HOME: stateOf('second'),
    });
    await app.stop();
    pace = () => Promise.resolve();
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim().split('\n').at(-1)).toContain(`"event":"completed","rotation":"${rotation}"`);
    expect((await keyById(sandbox, old.id)).status).toBe('revoked');
    const stored = JSON.parse(pg.psql(`SELECT record FROM svc_rotations.rotations WHERE id = '${rotation}'`)) as RotationRecord;
    expect(stored.status).toBe('completed');
    expect(JSON.stringify(stored)).not.toContain(old.secret);
    expect(app.authFailures()).toEqual([]);
  });
});

describe('a rotation stopped with --rotation-store on its command line', () => {
  it('names the store in words in the command that continues it, never its connection string', async () => {
    const old = await createKeyWithAdmin(sandbox, { name: 'stopped with the store on argv' });
    const newFile = join(sandbox.env.HOME!, 'stopped-with-store.key');
    const args = ['keys', 'rotate', old.id, '--new-key-file', newFile, '--deploy-cmd', 'true', '--quiet-period', '1h', '--timeout', '1s'];
    const stopped = await svc([...args, '--rotation-store', pg.url('stopped_store'), '--yes', '--json']);
    expect(stopped.code, stopped.stderr).toBe(ExitCode.drainTimedOut);
    const { hint } = (JSON.parse(stopped.stdout.trim().split('\n').at(-1)!) as { error: { hint: string } }).error;
    const rotation = String((JSON.parse(stopped.stdout.split('\n')[0]!) as RotationLine).rotation);
    expect(hint).toBe(
      `\`svc keys rotate --resume ${rotation} --timeout 1s\` (and the same rotation store, in SVC_ROTATION_STORE to keep it off the command line) waits again; --force revokes anyway`,
    );
    expect(stopped.stdout + stopped.stderr).not.toContain(pg.password);
  });
});
