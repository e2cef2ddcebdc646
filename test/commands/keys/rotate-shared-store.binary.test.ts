/**
 * `svc keys rotate` from several runners sharing one rotation store, a real PostgreSQL started for this file
 * (issue 42, item 6): each runner a state directory of its own, the store given in SVC_ROTATION_STORE. A
 * second runner is refused (exit 15) while the first runs; a runner killed mid-rotation is taken over, from
 * its journal, by another that starts from nothing; a runner whose lock's session ends stops. The real
 * binary (`npm run build`).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { redactKey } from '../../../src/core/redaction.js';
import type { RotationRecord } from '../../../src/keys/journal.js';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { type RunningSandbox, startSandboxProcess } from '../../helpers/sandbox.js';
import { runSvc } from '../../helpers/svc.js';
import { allKeys, createKeyWithAdmin, FAST, keyById, type RotationLine, spawnSvc, startBackgroundClient } from './fixtures.js';

let pg: TestPostgres;
let sandbox: RunningSandbox;
let home: string;

beforeAll(async () => {
  pg = startPostgres();
  sandbox = await startSandboxProcess(['--quiet', '--plan', 'enterprise']);
  home = sandbox.env.HOME!;
});
/** Every application started, stopped at the end whatever became of its test. */
const apps: Array<ReturnType<typeof startBackgroundClient>> = [];
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await sandbox?.stop();
  pg?.destroy();
});

/** A runner: the same profile and keys, a state directory of its own (empty), the shared store in its environment. */
function runner(name: string, store = pg.url()): Record<string, string> {
  return { ...sandbox.env, XDG_STATE_HOME: join(home, `state-of-${name}`), SVC_ROTATION_STORE: store };
}

/**
 * An application reading its key from `app.key`; a deploy command that copies the new key there, counts its
 * runs in `deploys`, says `deployed`, then waits for `gate` to exist; the rotation's --new-key-file beside them.
 */
async function setUp(name: string) {
  const old = await createKeyWithAdmin(sandbox, { name, read_only: true, allowed_ips: [] });
  const appFile = join(home, `${name}.app.key`);
  const newKeyFile = join(home, `${name}.new.key`);
  const gate = join(home, `${name}.gate`);
  const deploys = join(home, `${name}.deploys`);
  writeFileSync(appFile, `${old.secret}\n`, { mode: 0o600 });
  const deploy =
    `echo run >> "${deploys}"; umask 077 && cat > "${appFile}.tmp" && mv "${appFile}.tmp" "${appFile}" && echo deployed && ` +
    `until [ -e "${gate}" ]; do sleep 0.05; done`;
  const args = ['keys', 'rotate', old.id, '--new-key-file', newKeyFile, '--deploy-cmd', deploy, ...FAST, '--yes', '--json'];
  const app = startBackgroundClient(sandbox, appFile);
  apps.push(app);
  return { old, appFile, newKeyFile, gate, args, app, deploysRun: () => (existsSync(deploys) ? readFileSync(deploys, 'utf8').split('\n').length - 1 : 0) };
}

/** Resolves once `run` has written `text` on stderr. */
function stderrSays(run: ReturnType<typeof spawnSvc>, text: string): Promise<void> {
  return new Promise((resolve) => {
    const seen = () => run.stderr().includes(text) && (resolve(), true);
    if (!seen()) run.child.stderr!.on('data', seen);
  });
}

const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RotationLine);

/** How a runner's lock names it: its process and machine, as far as PostgreSQL's 63 bytes of application_name go. */
const holder = (pid: number) => `svc keys rotate: process ${pid} on ${hostname()}`.slice(0, 63).slice('svc keys rotate: '.length);

const keysOfRotationsOf = async (name: string) => (await allKeys(sandbox)).filter((key) => key.name?.startsWith(`${name} (rotation `));

function storedJournal(rotation: string): RotationRecord {
  return JSON.parse(pg.psql(`SELECT record FROM svc_rotations.rotations WHERE id = '${rotation}'`)) as RotationRecord;
}

describe('two runners rotating one key, sharing one rotation store', () => {
  it('refuses the second (exit 15) while the first runs, naming its process and machine; one new key in the end', async () => {
    const name = 'rotated from two runners';
    const { old, newKeyFile, gate, args, app } = await setUp(name);
    const first = spawnSvc(args, runner('scheduled job'));
    await stderrSays(first, 'deployed\n');

    const second = await runSvc(args, { env: runner('laptop') });
    expect(second.code, second.stderr).toBe(ExitCode.refused);
    expect(jsonLines(second.stdout)).toEqual([
      expect.objectContaining({
        error: expect.objectContaining({
          code: 'rotation_in_progress',
          message: `a rotation of ${old.id} is being run by ${holder(first.child.pid!)}`,
        }),
      }),
    ]);

    writeFileSync(gate, '');
    expect(await first.exited, first.stderr()).toBe(0);
    await app.stop();
    const made = await keysOfRotationsOf(name);
    expect(made.map((key) => key.status)).toEqual(['active']);
    expect(redactKey(readFileSync(newKeyFile, 'utf8').trim())).toBe(made[0]!.prefix_hint);
    expect((await keyById(sandbox, old.id)).status).toBe('revoked');
    expect(app.authFailures()).toEqual([]);

    // Any runner reads the shared store: the list, and --resume of a rotation that another completed.
    const rotation = first.lines[0]!.rotation as string;
    const listing = await runSvc(['keys', 'rotations', '--json'], { env: runner('auditor') });
    expect(listing.code, listing.stdout + listing.stderr).toBe(0);
    const listed = JSON.parse(listing.stdout) as RotationRecord[];
    expect(listed.find((record) => record.id === rotation)).toMatchObject({ status: 'completed', old_key: { id: old.id } });
    const resumed = await runSvc(['keys', 'rotate', '--resume', rotation, '--json'], { env: runner('auditor') });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(jsonLines(resumed.stdout)).toEqual([expect.objectContaining({ event: 'completed', rotation, new_key: made[0]!.id })]);
  });

  it('takes up the journal of a runner killed during its drain from an empty state directory, without the key file: one new key, deployed once', async () => {
    const name = 'taken over from its journal';
    const { old, newKeyFile, gate, args, app, deploysRun } = await setUp(name);
    writeFileSync(gate, '');
    const first = spawnSvc(args, runner('killed'));
    const verified = await first.lineWhere((line) => line.event === 'step_done' && line.step === 'verify');
    expect(verified, first.stderr()).toBeDefined();
    first.child.kill('SIGKILL');
    await first.exited;
    const rotation = verified!.rotation as string;
    expect(storedJournal(rotation).steps.verify).toBeDefined();
    // The next runner is another machine: the key file stayed on the first.
    renameSync(newKeyFile, `${newKeyFile}.on-the-killed-runner`);

    const again = await runSvc(args, { env: runner('next') });
    await app.stop();
    expect(again.code, again.stderr).toBe(0);
    const lines = jsonLines(again.stdout);
    expect(lines[0]).toMatchObject({ event: 'started', rotation, resumed: true, next_step: 'drain' });
    expect(lines.at(-1)).toMatchObject({ event: 'completed', rotation, old_key: old.id });
    const made = await keysOfRotationsOf(name);
    expect(made.map((key) => `${key.id} ${key.status}`)).toEqual([`${lines.at(-1)!.new_key as string} active`]);
    expect((await keyById(sandbox, old.id)).status).toBe('revoked');
    expect(deploysRun()).toBe(1);
    expect(existsSync(newKeyFile)).toBe(false);
    expect(storedJournal(rotation).status).toBe('completed');
    expect(app.authFailures()).toEqual([]);
  });

  it('stops a runner whose lock was lost (its session ended) before it goes on, and another takes the rotation over', async () => {
    const name = 'lock lost';
    const { old, gate, args, app } = await setUp(name);
    const first = spawnSvc(args, runner('cut off'));
    await stderrSays(first, 'deployed\n');
    const rotation = first.lines[0]!.rotation as string;
    const ended = pg.psql(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'svc keys rotate: process ${first.child.pid} on %'`,
    );
    expect(ended).toBe('t');

    expect(await first.exited, first.stderr()).toBe(ExitCode.network);
    expect(first.lines.at(-1)).toMatchObject({ error: { code: 'rotation_lock_lost' } });
    expect(storedJournal(rotation).steps.deploy).toBeUndefined();

    writeFileSync(gate, '');
    const next = await runSvc(args, { env: runner('after the cut') });
    await app.stop();
    expect(next.code, next.stderr).toBe(0);
    expect(jsonLines(next.stdout).at(-1)).toMatchObject({ event: 'completed', rotation, old_key: old.id });
    expect((await keysOfRotationsOf(name)).map((key) => key.status)).toEqual(['active']);
  });
});

describe('the connection string of the rotation store', () => {
  it('is never shown, nor given to the deploy command; a store that refuses the password is named without it (exit 10)', async () => {
    const name = 'store kept secret';
    const { args, gate, app } = await setUp(name);
    writeFileSync(gate, '');
    const deployArgs = args.map((arg, index) => (args[index - 1] === '--deploy-cmd' ? `env; ${arg}` : arg));
    const rotated = await runSvc(deployArgs, { env: runner('discreet') });
    await app.stop();
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout + rotated.stderr).not.toContain(pg.password);
    expect(rotated.stderr).not.toContain('SVC_ROTATION_STORE');

    const wrong = pg.url().replace(pg.password, 'not-the-password-of-svc');
    const refused = await runSvc(['keys', 'rotations', '--json'], { env: runner('mistyped', wrong) });
    expect(refused.code, refused.stderr).toBe(ExitCode.config);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'store_unavailable' });
    expect(refused.stdout + refused.stderr).not.toContain('not-the-password-of-svc');
    expect(refused.stderr).toContain('postgres://svc:…@localhost/postgres');
  });
});
