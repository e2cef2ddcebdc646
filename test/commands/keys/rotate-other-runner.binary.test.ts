/**
 * A rotation killed (SIGKILL) on one runner during its deploy, and the same command run again on another
 * runner whose state directory is empty (issue 42, item 5): the second run finds, among the keys the
 * service shows, the key the first made, and takes it up from --new-key-file, or stops and names it. It
 * never makes a second key, and never overwrites a file that holds a key. The real binary (`npm run build`).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactKey } from '../../../src/core/redaction.js';
import { ExitCode } from '../../../src/core/errors.js';
import { type RunningSandbox, startSandboxProcess } from '../../helpers/sandbox.js';
import { runSvc } from '../../helpers/svc.js';
import { allKeys, createKeyWithAdmin, FAST, keyById, spawnSvc, startBackgroundClient } from './fixtures.js';

let sandbox: RunningSandbox;
let home: string;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet', '--plan', 'enterprise']);
  home = sandbox.env.HOME!;
});
/** Every application started, stopped at the end whatever became of its test. */
const apps: Array<ReturnType<typeof startBackgroundClient>> = [];
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await sandbox.stop();
});

function application(file: string) {
  const app = startBackgroundClient(sandbox, file);
  apps.push(app);
  return app;
}

/** The environment of a runner of its own: the same profile and keys, its own empty state directory. */
function runner(name: string): Record<string, string> {
  return { ...sandbox.env, XDG_STATE_HOME: join(home, `state-of-${name}`) };
}

/**
 * An application reading its key from `app.key`; a deploy command that copies the new key there, then
 * waits for `gate` to exist; the rotation's --new-key-file beside it, as a CI job's volume holds it.
 */
async function setUp(name: string) {
  const old = await createKeyWithAdmin(sandbox, { name, read_only: true, allowed_ips: [] });
  const appFile = join(home, `${name}.app.key`);
  const newKeyFile = join(home, `${name}.new.key`);
  const gate = join(home, `${name}.gate`);
  writeFileSync(appFile, `${old.secret}\n`, { mode: 0o600 });
  const deploy = `umask 077 && cat > "${appFile}.tmp" && mv "${appFile}.tmp" "${appFile}" && echo deployed && until [ -e "${gate}" ]; do sleep 0.05; done`;
  const args = ['keys', 'rotate', old.id, '--new-key-file', newKeyFile, '--deploy-cmd', deploy, ...FAST, '--yes', '--json'];
  return { old, appFile, newKeyFile, gate, args };
}

/** Runs `args` on `env`'s runner and SIGKILLs it while its deploy command waits at the gate, the new key already deployed. */
async function killDuringDeploy(args: string[], env: Record<string, string>): Promise<string> {
  const run = spawnSvc(args, env);
  const started = await run.lineWhere((line) => line.event === 'started');
  await new Promise<void>((resolve) => {
    const seen = () => run.stderr().includes('deployed\n') && (resolve(), true);
    if (!seen()) run.child.stderr!.on('data', seen);
  });
  run.child.kill('SIGKILL');
  await run.exited;
  return started!.rotation as string;
}

/** The keys made by rotations of the key named `name`: their names begin with its name. */
const keysOfRotationsOf = async (name: string) => (await allKeys(sandbox)).filter((key) => key.name?.startsWith(`${name} (rotation `));

describe('a rotation killed during its deploy on one runner, run again on another with an empty state directory', () => {
  it('takes up the key the first run made, from --new-key-file: no second key, the file kept, the rotation complete', async () => {
    const name = 'taken up on runner 2';
    const { old, appFile, newKeyFile, gate, args } = await setUp(name);
    const app = application(appFile);
    const rotation = await killDuringDeploy(args, runner('one'));
    writeFileSync(gate, '');
    const [made] = await keysOfRotationsOf(name);
    const secret = readFileSync(newKeyFile, 'utf8');
    expect(redactKey(secret.trim())).toBe(made!.prefix_hint);

    const again = await runSvc(args, { env: runner('two') });
    await app.stop();
    expect(again.code, again.stderr).toBe(0);
    const lines = again.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.find((line) => line.event === 'notice')?.message).toContain(`took up ${made!.id}`);
    expect(lines.at(-1)).toMatchObject({ event: 'completed', rotation, old_key: old.id, new_key: made!.id });
    const ofThisKey = await keysOfRotationsOf(name);
    expect(ofThisKey.map((key) => `${key.id} ${key.status}`)).toEqual([`${made!.id} active`]);
    expect(readFileSync(newKeyFile, 'utf8')).toBe(secret);
    expect((await keyById(sandbox, old.id)).status).toBe('revoked');
    expect(app.authFailures()).toEqual([]);
  });

  it('stops and names the key the first run made when --new-key-file does not hold its secret: no key made, the file kept', async () => {
    const name = 'named on runner 2';
    const { old, newKeyFile, gate, args, appFile } = await setUp(name);
    const app = application(appFile);
    await killDuringDeploy(args, runner('three'));
    writeFileSync(gate, '');
    await app.stop();
    const [made] = await keysOfRotationsOf(name);
    // Runner 2's copy of the file holds another key: the one the service shows can be neither taken up nor replaced.
    const other = await createKeyWithAdmin(sandbox, { name: 'another key of the ops team' });
    writeFileSync(newKeyFile, `${other.secret}\n`, { mode: 0o600 });

    const again = await runSvc(args, { env: runner('four') });
    expect(again.code, again.stderr).toBe(ExitCode.refused);
    const { error } = JSON.parse(again.stdout.trim().split('\n').at(-1)!) as { error: { code: string; message: string; hint: string } };
    expect(error.code).toBe('rotation_key_exists');
    expect(error.message).toContain(`${made!.id} (${made!.prefix_hint})`);
    expect(error.hint).toContain(`svc keys revoke ${made!.id}`);
    expect(again.stdout + again.stderr).not.toContain(other.secret);
    expect((await keysOfRotationsOf(name)).map((key) => key.id)).toEqual([made!.id]);
    expect(readFileSync(newKeyFile, 'utf8')).toBe(`${other.secret}\n`);
    expect((await keyById(sandbox, old.id)).status).toBe('active');
  });

  it('stops and names the key the first run made when the runner has no --new-key-file of its own: no key made, no file written', async () => {
    const name = 'runner 2 without the key file';
    const { newKeyFile, gate, args, appFile } = await setUp(name);
    const app = application(appFile);
    await killDuringDeploy(args, runner('five'));
    writeFileSync(gate, '');
    await app.stop();
    const [made] = await keysOfRotationsOf(name);
    // Runner 2 is a new machine: the file stayed on runner 1.
    renameSync(newKeyFile, `${newKeyFile}.on-runner-1`);

    const again = await runSvc(args, { env: runner('six') });
    expect(again.code, again.stderr).toBe(ExitCode.refused);
    const { error } = JSON.parse(again.stdout.trim().split('\n').at(-1)!) as { error: { code: string; message: string } };
    expect(error).toMatchObject({ code: 'rotation_key_exists' });
    expect(error.message).toContain(`${made!.id} (${made!.prefix_hint})`);
    expect(error.message).toContain(`${newKeyFile} holds nothing`);
    expect((await keysOfRotationsOf(name)).map((key) => key.id)).toEqual([made!.id]);
    expect(existsSync(newKeyFile)).toBe(false);
  });
});
