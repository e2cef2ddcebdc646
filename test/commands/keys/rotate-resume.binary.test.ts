import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactKey } from '../../../src/core/redaction.js';
import { ExitCode } from '../../../src/core/errors.js';
import { type RotationRecord, STEPS } from '../../../src/keys/journal.js';
import { type RunningSandbox, startSandboxProcess } from '../../helpers/sandbox.js';
import { runSvc, SVC_BIN } from '../../helpers/svc.js';
import { allKeys, createKeyWithAdmin, FAST, keyById, type RotationLine, spawnSvc, startBackgroundClient } from './fixtures.js';

let sandbox: RunningSandbox;
let home: string;
/** The keys of the workspace before any rotation: all must still be active at the end. */
let sandboxKeyIds: string[];
/** The new key of every rotation that completed. */
const newKeys = new Set<string>();
const clients: Array<ReturnType<typeof startBackgroundClient>> = [];

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet', '--plan', 'enterprise']);
  home = sandbox.env.HOME!;
  sandboxKeyIds = (await allKeys(sandbox)).map((key) => key.id);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.stop()));
  await sandbox.stop();
});

function journalPath(id: string): string {
  return join(home, 'state', 'svc', 'rotations', `${id}.json`);
}

function journal(id: string): RotationRecord {
  return JSON.parse(readFileSync(journalPath(id), 'utf8')) as RotationRecord;
}

/** An application using a fresh key from its own key file, which is also the rotation's --new-key-file. */
async function application(name: string) {
  const old = await createKeyWithAdmin(sandbox, { name, read_only: true, allowed_ips: [] });
  const file = join(home, `${name.replaceAll(' ', '-')}.key`);
  writeFileSync(file, `${old.secret}\n`, { mode: 0o600 });
  const client = startBackgroundClient(sandbox, file);
  clients.push(client);
  return { old, file, client };
}

/** Starts a rotation and SIGKILLs it as soon as it reports `step` done; returns the rotation id. */
async function rotateAndKillAfter(oldId: string, file: string, step: string): Promise<string> {
  const run = spawnSvc(['keys', 'rotate', oldId, '--new-key-file', file, ...FAST, '--yes', '--json'], sandbox.env);
  const done = await run.lineWhere((line) => line.event === 'step_done' && line.step === step);
  expect(done, run.stderr()).toBeDefined();
  run.child.kill('SIGKILL');
  await run.exited;
  return done!.rotation as string;
}

function resume(rotation: string, extra: string[] = []) {
  return runSvc(['keys', 'rotate', '--resume', rotation, ...FAST, '--yes', '--json', ...extra], { env: sandbox.env });
}

/** Exactly one new active key, the old one revoked, the new secret in its 0600 file, nothing else of this rotation left. */
async function expectRotated(rotation: string, oldId: string, file: string) {
  const record = journal(rotation);
  expect(record.status).toBe('completed');
  expect((await keyById(sandbox, oldId)).status).toBe('revoked');
  const ofThisRotation = (await allKeys(sandbox)).filter((key) => key.name?.includes(rotation));
  const active = ofThisRotation.filter((key) => key.status === 'active');
  expect(active).toHaveLength(1);
  expect(active[0]!.id).toBe(record.steps.create!.new_key.id!);
  expect(active[0]!.read_only).toBe(true);
  const secret = readFileSync(file, 'utf8').trim();
  expect(redactKey(secret)).toBe(active[0]!.prefix_hint);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect((await sandbox.fetch('/v1/reports?limit=1', { key: secret })).status).toBe(200);
  newKeys.add(active[0]!.id);
}

describe('a rotation killed with SIGKILL after each step, then resumed', () => {
  it.concurrent.each(STEPS.map((step, index) => [index + 1, step]))('after step %i (%s)', async (_number, step) => {
    const app = await application(`killed after ${step}`);
    const rotation = await rotateAndKillAfter(app.old.id, app.file, step);
    const resumed = await resume(rotation);
    await app.client.stop();
    expect(resumed.code, resumed.stderr).toBe(0);
    await expectRotated(rotation, app.old.id, app.file);
    expect(app.client.authFailures()).toEqual([]);
  });

  it.concurrent('killed while its deploy command runs: --resume asks before deploying again, --yes does', async () => {
    const app = await application('killed while deploying');
    const run = spawnSvc(['keys', 'rotate', app.old.id, '--new-key-file', app.file, '--deploy-cmd', 'kill -KILL $PPID', ...FAST, '--json'], sandbox.env);
    const started = await run.lineWhere((line) => line.event === 'started');
    const exit = await run.exited;
    expect(started, `exit ${exit}; stdout ${JSON.stringify(run.lines)}; stderr ${run.stderr()}`).toBeDefined();
    const rotation = started!.rotation as string;
    expect(journal(rotation).attempts.deploy).toBeDefined();
    expect(journal(rotation).steps.deploy).toBeUndefined();

    const unattended = await runSvc(['keys', 'rotate', '--resume', rotation, ...FAST, '--json'], { env: sandbox.env });
    expect(unattended.code).toBe(ExitCode.usage);
    expect(JSON.parse(unattended.stdout.trim().split('\n').at(-1)!).error.message).toContain('--yes is required');
    expect(journal(rotation).steps.deploy).toBeUndefined();

    const resumed = await resume(rotation, ['--deploy-cmd', 'true']);
    await app.client.stop();
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(journal(rotation).deploy_cmd).toBe('true');
    await expectRotated(rotation, app.old.id, app.file);
  });

  it.concurrent('killed between creating the key and recording it: the key is found by name and adopted, as its secret was saved', async () => {
    const app = await application('lost answer saved secret');
    const rotation = await rotateAndKillAfter(app.old.id, app.file, 'create');
    const record = journal(rotation);
    const created = record.steps.create!.new_key;
    // As the journal stands when the run dies between the answer to POST /v1/keys and recording it.
    writeFileSync(journalPath(rotation), JSON.stringify({ ...record, attempts: { create: record.attempts.create }, steps: {} }));
    const resumed = await resume(rotation);
    await app.client.stop();
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(journal(rotation).steps.create!.new_key.id).toBe(created.id);
    await expectRotated(rotation, app.old.id, app.file);
  });

  it.concurrent('killed between creating the key and saving its secret: that key is revoked and another made', async () => {
    const old = await createKeyWithAdmin(sandbox, { name: 'lost secret', read_only: true });
    const file = join(home, 'lost-secret.new.key');
    const rotation = await rotateAndKillAfter(old.id, file, 'create');
    const record = journal(rotation);
    const lost = record.steps.create!.new_key;
    // As the journal stands when the run dies between the answer to POST /v1/keys and recording it.
    writeFileSync(journalPath(rotation), JSON.stringify({ ...record, attempts: { create: record.attempts.create }, steps: {} }));
    // As the application's own key file stands when svc died before writing to it: the old key.
    writeFileSync(file, `${old.secret}\n`, { mode: 0o600 });
    const app = startBackgroundClient(sandbox, file);
    clients.push(app);
    const resumed = await resume(rotation);
    await app.stop();
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`"revoked_key":"${lost.id}"`);
    expect((await keyById(sandbox, lost.id!)).status).toBe('revoked');
    expect(journal(rotation).steps.create!.new_key.id).not.toBe(lost.id);
    await expectRotated(rotation, old.id, file);
  });

  it('leaves no orphan key in the workspace: every active key is a sandbox key or the new key of a rotation', async () => {
    const active = (await allKeys(sandbox)).filter((key) => key.status === 'active').map((key) => key.id);
    expect(active.filter((id) => !sandboxKeyIds.includes(id) && !newKeys.has(id))).toEqual([]);
    expect(sandboxKeyIds.every((id) => active.includes(id))).toBe(true);
    expect(newKeys.size).toBe(STEPS.length + 3);
  });
});

describe('svc keys rotate --abort and svc keys rotations', () => {
  it('aborts a rotation stopped before its deploy: the new key is revoked, its file removed, the old key stays', async () => {
    const old = await createKeyWithAdmin(sandbox, { name: 'to abort' });
    const file = join(home, 'abort.new.key');
    const rotation = await rotateAndKillAfter(old.id, file, 'save');
    const { attempts, steps, ...record } = journal(rotation);
    // As the journal stood when step 2 had been recorded and the deploy not begun.
    writeFileSync(
      journalPath(rotation),
      JSON.stringify({ ...record, attempts: { create: attempts.create }, steps: { create: steps.create, save: steps.save } }),
    );

    const listed = await runSvc(['keys', 'rotations'], { env: sandbox.env });
    expect(listed.stdout).toMatch(new RegExp(`${rotation}\\t${old.id}.*\\tat step 3/7 \\(deploy\\)`));

    const aborted = await runSvc(['keys', 'rotate', '--abort', rotation, '--json'], { env: sandbox.env });
    expect(aborted.code, aborted.stderr).toBe(0);
    expect(JSON.parse(aborted.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      event: 'aborted',
      new_key_revoked: [steps.create!.new_key.id],
      new_key_left: null,
    });
    expect((await keyById(sandbox, steps.create!.new_key.id!)).status).toBe('revoked');
    expect((await keyById(sandbox, old.id)).status).toBe('active');
    expect(existsSync(file)).toBe(false);
    expect(journal(rotation).status).toBe('aborted');

    const again = await resume(rotation);
    expect(again.code).toBe(ExitCode.refused);
  });

  it('does not revoke a new key that may be deployed', async () => {
    const app = await application('abort after deploy');
    const rotation = await rotateAndKillAfter(app.old.id, app.file, 'deploy');
    await app.client.stop();
    const newKey = journal(rotation).steps.create!.new_key.id!;
    const aborted = await runSvc(['keys', 'rotate', '--abort', app.old.id], { env: sandbox.env });
    expect(aborted.code, aborted.stderr).toBe(0);
    expect(aborted.stdout).toContain(`the new key ${newKey} may be deployed, so it stays active`);
    expect((await keyById(sandbox, newKey)).status).toBe('active');
    expect((await keyById(sandbox, app.old.id)).status).toBe('active');
  });

  it('refuses to abort once the old key is revoked', async () => {
    const app = await application('abort too late');
    const rotation = await rotateAndKillAfter(app.old.id, app.file, 'revoke');
    const late = await runSvc(['keys', 'rotate', '--abort', rotation, '--json'], { env: sandbox.env });
    expect(late.code).toBe(ExitCode.refused);
    expect(JSON.parse(late.stdout).error.code).toBe('rotation_past_revocation');
    const resumed = await resume(rotation);
    await app.client.stop();
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await runSvc(['keys', 'rotate', '--abort', rotation], { env: sandbox.env })).code).toBe(ExitCode.refused);
  });
});

/** The state letter of a process in /proc/<pid>/stat (R, S, Z…), undefined when there is no such process. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0];
  } catch {
    return undefined;
  }
}

describe('the lock of a rotation', () => {
  it('refuses a second run while the first one works, naming its process', async () => {
    const app = await application('locked while deploying');
    const gate = join(home, 'locked-while-deploying.gate');
    const deploy = 'echo waiting; until [ -e "$DEPLOY_GATE" ]; do sleep 0.05; done';
    const first = spawnSvc(['keys', 'rotate', app.old.id, '--new-key-file', app.file, '--deploy-cmd', deploy, ...FAST, '--yes', '--json'], {
      ...sandbox.env,
      DEPLOY_GATE: gate,
    });
    const started = await first.lineWhere((line) => line.event === 'started');
    await new Promise<void>((resolve) => {
      const seen = () => first.stderr().includes('waiting\n') && (resolve(), true);
      if (!seen()) first.child.stderr!.on('data', seen);
    });
    const second = await resume(started!.rotation as string);
    writeFileSync(gate, '');
    expect(await first.exited, first.stderr()).toBe(0);
    await app.client.stop();
    expect(second.code, second.stderr).toBe(ExitCode.refused);
    expect(JSON.parse(second.stdout).error).toMatchObject({
      code: 'rotation_in_progress',
      message: `a rotation of ${app.old.id} is being run by process ${first.child.pid}`,
    });
    await expectRotated(started!.rotation as string, app.old.id, app.file);
  });

  it.skipIf(process.platform !== 'linux')('is free once its holder was killed, though nobody reaps it and it stays a zombie', async () => {
    const app = await application('killed into a zombie');
    // sh starts svc in the background, then becomes `sleep`, which never waits for a child: as in a
    // container whose init does not reap orphans.
    const parent = spawn(
      'sh',
      [
        '-c',
        '"$@" & echo "$!"; exec sleep 300',
        'sh',
        process.execPath,
        SVC_BIN,
        'keys',
        'rotate',
        app.old.id,
        '--new-key-file',
        app.file,
        ...FAST,
        '--yes',
        '--json',
      ],
      {
        env: sandbox.env,
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    const lines = createInterface({ input: parent.stdout });
    const pid = Number(await new Promise<string>((resolve) => lines.once('line', resolve)));
    const saved = await new Promise<RotationLine>((resolve) =>
      lines.on('line', (text) => {
        const line = JSON.parse(text) as RotationLine;
        if (line.event === 'step_done' && line.step === 'save') resolve(line);
      }),
    );
    process.kill(pid, 'SIGKILL');
    while (processState(pid) !== 'Z') await sleep(20);
    try {
      const resumed = await resume(saved.rotation as string);
      await app.client.stop();
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(processState(pid)).toBe('Z');
      await expectRotated(saved.rotation as string, app.old.id, app.file);
    } finally {
      parent.kill();
    }
  });

  it('is free once its holder was killed, though the PID it recorded now belongs to another program', async () => {
    const app = await application('pid reused');
    const run = spawnSvc(['keys', 'rotate', app.old.id, '--new-key-file', app.file, ...FAST, '--yes', '--json'], sandbox.env);
    const saved = await run.lineWhere((line) => line.event === 'step_done' && line.step === 'save');
    run.child.kill('SIGKILL');
    await run.exited;
    const rotation = saved!.rotation as string;
    // Another program, started after svc, as if given svc's PID: the PID the killed run recorded is made its PID.
    const other = spawn('sleep', ['300']);
    try {
      const dir = join(home, 'state', 'svc', 'rotations');
      const recorded = readdirSync(dir).filter(
        (name) => name.endsWith('.holder') && readFileSync(join(dir, name), 'utf8').trim() === `process ${run.child.pid}`,
      );
      expect(recorded.length).toBeGreaterThan(0);
      for (const name of recorded) writeFileSync(join(dir, name), `process ${other.pid}\n`);
      const resumed = await resume(rotation);
      await app.client.stop();
      expect(resumed.code, resumed.stderr).toBe(0);
      await expectRotated(rotation, app.old.id, app.file);
    } finally {
      other.kill();
    }
  });
});
