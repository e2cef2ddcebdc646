/**
 * `svc keys rotate` against a service with no key API (issue 22, part A), where only a process shows
 * it: a person at a real pseudo-terminal, a run killed with SIGKILL (after each step, the instant its
 * deploy command starts), two runs at once. The real binary (needs `npm run build`), a real server on
 * 127.0.0.1. The rest: rotate-dashboard-key.test.ts, in-process.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { redactKey } from '../../../src/core/redaction.js';
import { type RotationRecord, STEPS } from '../../../src/keys/journal.js';
import { type DashboardKey, type KeylessImplementation, startKeylessImplementation } from '../../helpers/keyless-implementation.js';
import { HANG_MS } from '../../helpers/hang.js';
import { hasEnded } from '../../helpers/processes.js';
import { isolatedEnv, runSvc, SVC_BIN, type SvcResult } from '../../helpers/svc.js';
import { finalScreen, runInTerminal, startInTerminal } from '../../helpers/terminal.js';
import { type RotationLine, spawnSvc } from './fixtures.js';

/** Short waits; and as this service shows no key's scope, the operator says that the given key may have another (--allow-scope-change). */
const FAST = ['--poll-interval', '200ms', '--timeout', '30s', '--allow-scope-change'];

let service: KeylessImplementation;
let admin: DashboardKey;
const apps: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  service = await startKeylessImplementation();
  admin = service.makeKey('admin');
  service.addReport();
  service.addReport();
  service.addReport('ws_other');
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await service.close();
});

function environment(): Record<string, string> {
  return isolatedEnv({ SVC_BASE_URL: service.url, SVC_ADMIN_KEY: admin.secret, SVC_RETRIES: '0' });
}

function writeKey(file: string, secret: string): string {
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return file;
}

/**
 * An application that calls the API every 50 ms with the key its key file holds, and a key made
 * "in the dashboard" for it: its files (the app's, a copy of the old key's, the new key's) in a home of their own.
 */
function application(env: Record<string, string>, readOnly: { old?: boolean; fresh?: boolean } = {}) {
  const old = service.makeKey('test', 'ws_main', { readOnly: readOnly.old });
  const fresh = service.makeKey('test', 'ws_main', { readOnly: readOnly.fresh });
  const home = env.HOME!;
  const appFile = writeKey(join(home, 'app.key'), old.secret);
  const oldFile = writeKey(join(home, 'old.key'), old.secret);
  const newFile = writeKey(join(home, 'new.key'), fresh.secret);
  const statuses: Array<{ status: number; key: string }> = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const key = readFileSync(appFile, 'utf8').trim();
      const response = await fetch(`${service.url}/v1/reports`, { headers: { authorization: `Bearer ${key}` } });
      await response.arrayBuffer();
      statuses.push({ status: response.status, key });
      await sleep(50);
    }
  })();
  const app = {
    old,
    fresh,
    appFile,
    oldFile,
    newFile,
    /** Deploys as a real one would: replaces, atomically, the file the application reads with the key it is given on stdin. */
    deployCmd: `cat > '${appFile}.new' && mv '${appFile}.new' '${appFile}'`,
    authFailures: () => statuses.filter((answer) => answer.status === 401 || answer.status === 403),
    async stop() {
      running = false;
      await loop;
    },
  };
  apps.push(app);
  return app;
}

/** The user's own check: exit 0 when the old key (SVC_OLD_KEY_ID) has not been used for a second, as the dashboard shows it. */
function checkCommand(home: string): string {
  const script = join(home, 'no-traffic.mjs');
  writeFileSync(
    script,
    `const answer = await (await fetch(${JSON.stringify(service.url)} + '/_dashboard/last-use/' + process.env.SVC_OLD_KEY_ID)).json();
const quiet = answer.last_used_ms_ago === null || answer.last_used_ms_ago >= 1000;
console.log(quiet ? 'no traffic' : 'traffic ' + answer.last_used_ms_ago + ' ms ago');
process.exit(quiet ? 0 : 1);
`,
  );
  return `'${process.execPath}' '${script}'`;
}

function jsonLines(stdout: string): RotationLine[] {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RotationLine);
}

function journal(env: Record<string, string>, rotation: string): RotationRecord {
  return JSON.parse(readFileSync(join(env.XDG_STATE_HOME!, 'svc', 'rotations', `${rotation}.json`), 'utf8')) as RotationRecord;
}

function journals(env: Record<string, string>): string[] {
  const dir = join(env.XDG_STATE_HOME!, 'svc', 'rotations');
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.json')) : [];
}

/** What a request with `secret` gets now. */
async function answerTo(secret: string): Promise<{ status: number; code: string | undefined }> {
  const response = await fetch(`${service.url}/v1/reports`, { headers: { authorization: `Bearer ${secret}` } });
  const body = (await response.json()) as { error?: { code?: string } };
  return { status: response.status, code: body.error?.code };
}

/** The rotation ran to its end: seven steps, the old key revoked by one DELETE and refused, the new one working, no key ever created. */
async function expectRotated(result: { code: number | null; stdout: string; stderr: string }, app: ReturnType<typeof application>) {
  expect(result.code, result.stderr).toBe(0);
  expect(service.isRevoked(app.old.id)).toBe(true);
  expect(service.deletions().filter((id) => id === app.old.id).length).toBeGreaterThanOrEqual(1);
  expect(await answerTo(app.old.secret)).toEqual({ status: 401, code: 'invalid_key' });
  expect(await answerTo(app.fresh.secret)).toMatchObject({ status: 200 });
  expect(service.requests.filter((request) => request.method !== 'GET' && request.method !== 'DELETE')).toEqual([]);
  for (const secret of [app.old.secret, app.fresh.secret, admin.secret]) {
    expect(result.stdout).not.toContain(secret);
    expect(result.stderr).not.toContain(secret);
  }
}

describe('a key made in the dashboard, against a service with no key API, where only a process shows it', () => {
  it('at a terminal: a person confirms the drain from the dashboard', async () => {
    const env = environment();
    const app = application(env);
    const session = startInTerminal(
      [
        'keys',
        'rotate',
        app.old.id,
        '--new-key-file',
        app.newFile,
        '--new-key-id',
        app.fresh.id,
        '--old-key-file',
        app.oldFile,
        '--deploy-cmd',
        app.deployCmd,
        ...FAST,
      ],
      env,
    );
    await session.waitFor('Settings › API Keys');
    await session.waitFor('(y/N)');
    session.type('y\r');
    const { code, screen } = await session.exited();
    await app.stop();
    expect(code, screen).toBe(0);
    expect(screen).toContain('confirmed at the terminal');
    expect(screen).toContain(`Rotated ${app.old.id} → ${app.fresh.id}`);
    expect(service.isRevoked(app.old.id)).toBe(true);
    expect(await answerTo(app.old.secret)).toEqual({ status: 401, code: 'invalid_key' });
    expect(screen).not.toContain(app.fresh.secret);
    expect(app.authFailures()).toEqual([]);
  });

  it('at an 80-column terminal, what svc could not establish of the given key is shown, with what a write showed, and one question settles it', async () => {
    const env = environment();
    const app = application(env, { old: true, fresh: true });
    const session = startInTerminal(
      [
        'keys',
        'rotate',
        app.old.id,
        '--new-key-file',
        app.newFile,
        '--new-key-id',
        app.fresh.id,
        '--old-key-file',
        app.oldFile,
        '--deploy-cmd',
        app.deployCmd,
        '--drain-check-cmd',
        checkCommand(env.HOME!),
        '--poll-interval',
        '200ms',
        '--timeout',
        '30s',
      ],
      env,
    );
    await session.waitFor('(y/N)');
    session.type('y\r');
    const { code, raw } = await session.exited();
    await app.stop();
    const lines = await finalScreen(raw);
    const screen = lines.join('\n');
    expect(code, screen).toBe(0);
    const shown = screen.replace(/\s*\n\s*/g, ' ');
    expect(shown).toContain(
      `not established: that the given key ${redactKey(app.fresh.secret)} is of ${app.old.id}'s scope (not compared: the service shows no scope of ${app.old.id}; both keys are read-only`,
    );
    expect(shown).toContain(
      `Compare the given key ${redactKey(app.fresh.secret)} with ${app.old.id} in the dashboard (Settings › API Keys): is it of the same scope? Yes deploys it`,
    );
    // One question, answered: inquirer leaves it marked ✔.
    expect(
      lines.filter((line) => line.startsWith('✔ ')),
      screen,
    ).toHaveLength(1);
    expect(screen).toContain(`Rotated ${app.old.id} → ${app.fresh.id}`);
    expect(service.isRevoked(app.old.id)).toBe(true);
    const rotation = /Rotation (rot_\w+)/.exec(screen)![1]!;
    expect(journal(env, rotation).steps.create!.scope).toMatch(/; confirmed at the terminal$/);
    for (const secret of [app.old.secret, app.fresh.secret, admin.secret]) expect(raw).not.toContain(secret);
    expect(app.authFailures()).toEqual([]);
  });

  it('with CI set, at a terminal too, what svc could not establish is refused (exit 14) as from a script, and nothing is asked', async () => {
    const env = environment();
    const app = application(env, { old: true, fresh: true });
    const args = [
      'keys',
      'rotate',
      app.old.id,
      '--new-key-file',
      app.newFile,
      '--old-key-file',
      app.oldFile,
      '--deploy-cmd',
      app.deployCmd,
      '--drain-wait',
      '1s',
    ];
    const shown = await runInTerminal(args, env, 80, { ci: true });
    await app.stop();
    expect(shown.code, shown.lines.join('\n')).toBe(ExitCode.rotationStepFailed);
    expect(shown.lines.join(' ')).toContain('--allow-scope-change');
    expect(shown.lines.join('\n')).not.toContain('(y/N)');
    expect(readFileSync(app.appFile, 'utf8').trim()).toBe(app.old.secret);
    expect(service.isRevoked(app.old.id)).toBe(false);
  });

  it('--abort leaves a key made in the dashboard, and its file, to the person who made it', async () => {
    const env = environment();
    const app = application(env);
    const run = spawnSvc(
      [
        'keys',
        'rotate',
        app.old.id,
        '--new-key-file',
        app.newFile,
        '--old-key-file',
        app.oldFile,
        '--deploy-cmd',
        app.deployCmd,
        '--drain-wait',
        '1h',
        ...FAST,
        '--yes',
        '--json',
      ],
      env,
    );
    const deployed = await run.lineWhere((line) => line.event === 'step_done' && line.step === 'verify');
    expect(deployed, run.stderr()).toBeDefined();
    run.child.kill('SIGKILL');
    await run.exited;
    await app.stop();
    const aborted = await runSvc(['keys', 'rotate', '--abort', app.old.id, '--json'], { env });
    expect(aborted.code, aborted.stderr).toBe(0);
    expect(jsonLines(aborted.stdout)).toEqual([
      expect.objectContaining({ event: 'notice', message: 'the new key was made in the dashboard: svc leaves it, and the file it was given in, as they are' }),
      expect.objectContaining({ event: 'aborted', new_key_revoked: [], new_key_left: null }),
    ]);
    expect(readFileSync(app.newFile, 'utf8').trim()).toBe(app.fresh.secret);
    expect(service.isRevoked(app.old.id)).toBe(false);
    expect(service.isRevoked(app.fresh.id)).toBe(false);
  });
});

/** Runs a command line as a person pastes it into a shell, `svc` being this checkout's. */
function runShell(commandLine: string, env: Record<string, string>): Promise<SvcResult> {
  const svc = `'${process.execPath}' '${SVC_BIN}'`;
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', commandLine.replace(/^svc /, `${svc} `)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The command of the hint `continue it with \`…\``, as a person reads it off the screen: its lines joined again. */
function resumeCommandShown(screen: string[]): string {
  const start = screen.findIndex((line) => line.includes('continue it with `'));
  expect(start, screen.join('\n')).toBeGreaterThanOrEqual(0);
  const hint = screen
    .slice(start)
    .map((line) => line.trim())
    .join(' ');
  return /continue it with `([^`]+)`/.exec(hint)![1]!;
}

describe('Ctrl-C during the drain at an 80-column terminal', () => {
  it("shows a hint that carries the flags the journal does not keep, never a secret; run as shown, it confirms the revocation with the old key's secret", async () => {
    const env = environment();
    const app = application(env);
    // Where an operator keeps it: a directory whose name the shell must be given quoted.
    const opsKeys = join(env.HOME!, 'ops keys');
    mkdirSync(opsKeys);
    const oldFile = writeKey(join(opsKeys, 'old.key'), app.old.secret);
    const session = startInTerminal(
      [
        'keys',
        'rotate',
        app.old.id,
        '--new-key-file',
        app.newFile,
        '--new-key-id',
        app.fresh.id,
        '--old-key-file',
        oldFile,
        '--deploy-cmd',
        app.deployCmd,
        // The old key still has traffic, as the check says, until the operator gives up waiting.
        '--drain-check-cmd',
        'false',
        '--poll-interval',
        '200ms',
        '--timeout',
        '10m',
        '--allow-scope-change',
      ],
      env,
    );
    await session.waitFor('drain check exited 1');
    session.type('\u0003');
    const stopped = await session.exited();
    expect(stopped.code, stopped.screen).toBe(ExitCode.interrupted);
    const screen = await finalScreen(stopped.raw);
    const command = resumeCommandShown(screen);
    const rotation = /--resume (rot_\w+)/.exec(command)![1]!;
    expect(command).toBe(`svc keys rotate --resume ${rotation} --old-key-file '${oldFile}' --timeout 10m --poll-interval 200ms --allow-scope-change`);
    for (const secret of [app.old.secret, app.fresh.secret, admin.secret]) expect(stopped.raw).not.toContain(secret);
    expect(journal(env, rotation).steps.drain).toBeUndefined();

    // The operator's traffic check now finds none: the command shown, with that, finishes the rotation.
    const resumed = await runShell(`${command} --drain-check-cmd true --json`, env);
    await app.stop();
    await expectRotated(resumed, app);
    expect(journal(env, rotation).steps.confirm).toMatchObject({ by: 'request' });
    expect(jsonLines(resumed.stdout).find((line) => line.step === 'confirm')!.message).toBe(`a request with ${app.old.id} got 401 invalid_key`);
  });
});

describe('a dashboard-key rotation killed with SIGKILL after each step, then resumed', () => {
  it.concurrent.each(STEPS.map((step, index) => [index + 1, step]))('after step %i (%s)', async (_number, step) => {
    const env = environment();
    const app = application(env);
    const args = ['--old-key-file', app.oldFile, ...FAST, '--yes', '--json'];
    const run = spawnSvc(
      [
        'keys',
        'rotate',
        app.old.id,
        '--new-key-file',
        app.newFile,
        '--new-key-id',
        app.fresh.id,
        '--deploy-cmd',
        app.deployCmd,
        '--drain-check-cmd',
        checkCommand(env.HOME!),
        ...args,
      ],
      env,
    );
    const done = await run.lineWhere((line) => line.event === 'step_done' && line.step === step);
    expect(done, run.stderr()).toBeDefined();
    run.child.kill('SIGKILL');
    await run.exited;
    const resumed = await runSvc(['keys', 'rotate', '--resume', String(done!.rotation), ...args], { env });
    await app.stop();
    await expectRotated(resumed, app);
    expect(journal(env, String(done!.rotation))).toMatchObject({
      status: 'completed',
      steps: { drain: { evidence: 'check_command' }, confirm: { by: 'request' } },
    });
    expect(app.authFailures()).toEqual([]);
  });

  it("resumed after the revocation without the old key's secret: completes, and says the revocation was not confirmed", async () => {
    const env = environment();
    const app = application(env);
    const run = spawnSvc(
      [
        'keys',
        'rotate',
        app.old.id,
        '--new-key-file',
        app.newFile,
        '--old-key-file',
        app.oldFile,
        '--deploy-cmd',
        app.deployCmd,
        '--drain-wait',
        '1s',
        ...FAST,
        '--yes',
        '--json',
      ],
      env,
    );
    const done = await run.lineWhere((line) => line.event === 'step_done' && line.step === 'revoke');
    expect(done, run.stderr()).toBeDefined();
    run.child.kill('SIGKILL');
    await run.exited;
    const resumed = await runSvc(['keys', 'rotate', '--resume', String(done!.rotation), '--yes', '--json'], { env });
    await app.stop();
    expect(resumed.code, resumed.stderr).toBe(0);
    const confirm = jsonLines(resumed.stdout).find((line) => line.step === 'confirm')!;
    expect(confirm.message).toContain('the revocation was not confirmed');
    expect(resumed.stderr).toContain('was not confirmed');
    expect(journal(env, String(done!.rotation)).steps.confirm).toMatchObject({ by: 'not_confirmed' });
  });
});

/**
 * A preload for svc that kills it with SIGKILL the instant its deploy command has started (the one
 * child given SVC_NEW_API_KEY), before svc writes anything to the command's stdin, and leaves the
 * command's pid in `pidFile`.
 */
function killedAtDeploySpawn(pidFile: string): string {
  const hook = join(dirname(pidFile), 'killed-at-deploy-spawn.cjs');
  writeFileSync(
    hook,
    `const childProcess = require('node:child_process');
const spawn = childProcess.spawn;
childProcess.spawn = function (...args) {
  const child = spawn.apply(this, args);
  if (args.some((arg) => arg?.env?.SVC_NEW_API_KEY)) {
    require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));
    process.kill(process.pid, 'SIGKILL');
  }
  return child;
};
require('node:module').syncBuiltinESMExports();
`,
  );
  return hook;
}

describe('a rotation killed with SIGKILL the instant its deploy command started, before it had the key', () => {
  it('the command never deploys an empty key: the application keeps a whole key, and the resumed rotation completes', async () => {
    const env = environment();
    const app = application(env);
    const pidFile = join(env.HOME!, 'deploy.pid');
    const args = ['--old-key-file', app.oldFile, '--drain-wait', '1s', ...FAST, '--yes', '--json'];
    const run = spawnSvc(['keys', 'rotate', app.old.id, '--new-key-file', app.newFile, '--new-key-id', app.fresh.id, '--deploy-cmd', app.deployCmd, ...args], {
      ...env,
      NODE_OPTIONS: `--require "${killedAtDeploySpawn(pidFile)}"`,
    });
    expect(await run.exited, run.stderr()).toBeNull();
    const deploy = Number(readFileSync(pidFile, 'utf8'));
    for (const deadline = Date.now() + HANG_MS; !hasEnded(deploy); await sleep(20)) {
      if (Date.now() > deadline) throw new Error(`the deploy command svc started (pid ${deploy}) still runs after ${HANG_MS / 1000} s`);
    }
    expect([app.old.secret, app.fresh.secret]).toContain(readFileSync(app.appFile, 'utf8').trim());
    const rotation = String(run.lines.find((line) => line.rotation)!.rotation);
    const resumed = await runSvc(['keys', 'rotate', '--resume', rotation, ...args], { env });
    await app.stop();
    await expectRotated(resumed, app);
    expect(app.authFailures()).toEqual([]);
  });
});

describe('two rotations of one key started together against a slow service (1.5 s an answer)', () => {
  it('exactly one proceeds; the other is refused before planning anything', async () => {
    const slow = await startKeylessImplementation({ delayMs: 1500 });
    try {
      const slowAdmin = slow.makeKey('admin');
      const old = slow.makeKey('test');
      const fresh = slow.makeKey('test');
      const env = isolatedEnv({ SVC_BASE_URL: slow.url, SVC_ADMIN_KEY: slowAdmin.secret, SVC_RETRIES: '0' });
      const oldFile = writeKey(join(env.HOME!, 'old.key'), old.secret);
      const newFile = writeKey(join(env.HOME!, 'new.key'), fresh.secret);
      const args = [
        'keys',
        'rotate',
        old.id,
        '--new-key-file',
        newFile,
        '--old-key-file',
        oldFile,
        '--deploy-cmd',
        'true',
        '--drain-wait',
        '1s',
        // This service lists no report for either key: nothing shows the keys' workspace, and the operator says it is the same.
        '--allow-unverified-workspace',
        ...FAST,
        '--yes',
        '--json',
      ];
      const runs = [spawnSvc(args, env), spawnSvc(args, env)];
      const codes = await Promise.all(runs.map((run) => run.exited));
      expect([...codes].sort(), runs.map((run) => run.stderr()).join('\n')).toEqual([0, ExitCode.refused]);
      const loser = runs[codes.indexOf(ExitCode.refused)]!;
      expect(loser.lines.at(-1)).toMatchObject({ error: { code: 'rotation_in_progress' } });
      expect(loser.lines.filter((line) => line.event)).toEqual([]);
      expect(slow.deletions()).toEqual([old.id]);
      expect(journals(env)).toHaveLength(1);
    } finally {
      await slow.close();
    }
  }, 60_000);
});
