/**
 * `svc keys rotate` against a service with no key API (issue 22, part A), in the test's process: the
 * new key is made in the dashboard and given to svc, the drain is decided by the evidence there is,
 * the old key is revoked with the stated DELETE /v1/keys/{id} and a request with it must get 401
 * invalid_key. The service and the command share a paced test clock: the check command's quiet
 * second and --drain-wait pass on it. What only a process shows (a real terminal, SIGKILL, two
 * processes at once): rotate-dashboard-key.binary.test.ts.
 */
import { readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { type RotationRecord, STEPS } from '../../../src/keys/journal.js';
import { pacedClock } from '../../helpers/clock.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { type DashboardKey, type KeylessImplementation, startKeylessImplementation } from '../../helpers/keyless-implementation.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { type RotationLine, startBackgroundClient } from './fixtures.js';

/** What each of the drain's waits waits for besides the time: the running application's next request, if any. */
let pace: () => Promise<void> = () => Promise.resolve();
const clock = pacedClock(() => pace());
const apps: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  service = await startKeylessImplementation({ clock });
  admin = service.makeKey('admin');
  service.addReport();
  service.addReport();
  service.addReport('ws_other');
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await service.close();
});
afterEach(() => {
  pace = () => Promise.resolve();
});

/** As this service shows no key's scope, the operator says that the given key may have another (--allow-scope-change). */
const DASHBOARD_WAITS = ['--poll-interval', '200ms', '--timeout', '30s', '--allow-scope-change'];

let service: KeylessImplementation;
let admin: DashboardKey;

function environment(): Record<string, string> {
  return isolatedEnv({ SVC_BASE_URL: service.url, SVC_ADMIN_KEY: admin.secret, SVC_RETRIES: '0' });
}

function writeKey(file: string, secret: string): string {
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return file;
}

/**
 * An application that calls the API every 50 ms with the key its key file holds (the drain's polls
 * wait for its next request), and a key made "in the dashboard" for it: its files (the app's, a copy
 * of the old key's, the new key's) in a home of their own.
 */
function application(env: Record<string, string>, readOnly: { old?: boolean; fresh?: boolean } = {}) {
  const old = service.makeKey('test', 'ws_main', { readOnly: readOnly.old });
  const fresh = service.makeKey('test', 'ws_main', { readOnly: readOnly.fresh });
  const home = env.HOME!;
  const appFile = writeKey(join(home, 'app.key'), old.secret);
  const oldFile = writeKey(join(home, 'old.key'), old.secret);
  const newFile = writeKey(join(home, 'new.key'), fresh.secret);
  const client = startBackgroundClient(
    { fetch: (path, init) => fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${init?.key}` } }) },
    appFile,
  );
  pace = () => client.nextAnswer();
  const app = {
    old,
    fresh,
    appFile,
    oldFile,
    newFile,
    /** Deploys as a real one would: replaces, atomically, the file the application reads with the key it is given on stdin. */
    deployCmd: `cat > '${appFile}.new' && mv '${appFile}.new' '${appFile}'`,
    authFailures: client.authFailures,
    stop: () => client.stop(),
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

/** The reports a key lists. */
async function reportsOf(secret: string): Promise<unknown> {
  return (await fetch(`${service.url}/v1/reports`, { headers: { authorization: `Bearer ${secret}` } })).json();
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

describe('a key made in the dashboard, against a service with no key API', () => {
  it('from a script: given key checked, deploy run, drain decided by the check command, revoked with DELETE, 401 invalid_key confirmed', async () => {
    const env = environment();
    const app = application(env);
    const result = await svcInProcess(
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
        ...DASHBOARD_WAITS,
        '--yes',
        '--json',
      ],
      { env, clock },
    );
    await app.stop();
    await expectRotated(result, app);
    const lines = jsonLines(result.stdout);
    expect(lines.filter((line) => line.event === 'step_done').map((line) => line.step)).toEqual([...STEPS]);
    expect(lines.find((line) => line.step === 'create')!.message).toContain('workspace: same');
    expect(lines.find((line) => line.step === 'drain')).toMatchObject({ evidence: 'check_command' });
    expect(lines.find((line) => line.step === 'confirm')!.message).toBe(`a request with ${app.old.id} got 401 invalid_key`);
    expect(lines.at(-1)).toMatchObject({ event: 'completed', old_key: app.old.id, new_key: app.fresh.id });
    expect(readFileSync(app.newFile, 'utf8').trim()).toBe(app.fresh.secret);
    expect(readFileSync(app.appFile, 'utf8').trim()).toBe(app.fresh.secret);
    expect(app.authFailures()).toEqual([]);
    const rotation = String(lines[0]!.rotation);
    expect(journal(env, rotation)).toMatchObject({
      key_api: false,
      new_key_source: 'file',
      steps: { drain: { evidence: 'check_command' }, confirm: { by: 'request' } },
    });
  });

  it('from a script, the key on stdin: the drain decided by --drain-wait after the deploy', async () => {
    const env = environment();
    const app = application(env);
    const result = await svcInProcess(
      [
        'keys',
        'rotate',
        app.old.id,
        '--new-key-file',
        '-',
        '--old-key-file',
        app.oldFile,
        '--deploy-cmd',
        app.deployCmd,
        '--drain-wait',
        '1s',
        ...DASHBOARD_WAITS,
        '--yes',
        '--json',
      ],
      { env, clock, input: `${app.fresh.secret}\n` },
    );
    await app.stop();
    await expectRotated(result, app);
    const lines = jsonLines(result.stdout);
    expect(lines.find((line) => line.step === 'drain')).toMatchObject({ evidence: 'wait' });
    expect(lines.find((line) => line.event === 'notice')!.message).toMatch(/^waiting .*--drain-wait 1s after the deploy/);
    expect(lines.at(-1)).toMatchObject({ event: 'completed', new_key: null });
  });

  it('refuses --yes without any evidence of the drain before anything happens, naming the three ways', async () => {
    const env = environment();
    const app = application(env);
    await app.stop();
    const deletionsBefore = service.deletions().length;
    const result = await svcInProcess(
      ['keys', 'rotate', app.old.id, '--new-key-file', app.newFile, '--old-key-file', app.oldFile, '--deploy-cmd', app.deployCmd, '--yes', '--json'],
      { env, clock },
    );
    expect(result.code).toBe(ExitCode.usage);
    const error = (JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { error: { code: string; hint: string } }).error;
    expect(error.code).toBe('no_drain_evidence');
    expect(error.hint).toContain('--drain-check-cmd');
    expect(error.hint).toContain('at a terminal');
    expect(error.hint).toContain('--drain-wait');
    expect(journals(env)).toEqual([]);
    expect(service.deletions().length).toBe(deletionsBefore);
    expect(readFileSync(app.appFile, 'utf8').trim()).toBe(app.old.secret);
  });

  it.each([
    ['of another environment', (): DashboardKey => service.makeKey('live'), 'is a live key and'],
    ['of another workspace', (): DashboardKey => service.makeKey('test', 'ws_other'), 'is not of'],
    [
      'revoked in the dashboard',
      (): DashboardKey => ({ id: 'key_gone', secret: 'svc_test_revokedrevokedrevoked' }),
      'does not work: a read request got 401 invalid_key',
    ],
  ])('refuses a given key %s, and changes nothing', async (_what, make, message) => {
    const env = environment();
    const app = application(env);
    await app.stop();
    writeKey(app.newFile, make().secret);
    const result = await svcInProcess(
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
        '--yes',
        '--json',
      ],
      { env, clock },
    );
    expect(result.code).toBe(ExitCode.rotationStepFailed);
    const error = (JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('new_key_check_failed');
    expect(error.message).toContain(message);
    expect(service.isRevoked(app.old.id)).toBe(false);
    expect(readFileSync(app.appFile, 'utf8').trim()).toBe(app.old.secret);
  });

  it('--dry-run shows the plan for a given key and the evidence that will decide the drain, and changes nothing', async () => {
    const env = environment();
    const app = application(env);
    await app.stop();
    const requestsBefore = service.requests.length;
    const result = await svcInProcess(
      [
        'keys',
        'rotate',
        app.old.id,
        '--new-key-file',
        app.newFile,
        '--old-key-file',
        app.oldFile,
        '--drain-wait',
        '5m',
        '--deploy-cmd',
        'true',
        '--dry-run',
        '--json',
      ],
      { env, clock },
    );
    expect(result.code, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout) as { steps: Array<{ step: string; action: string }> };
    expect(plan.steps.find((step) => step.step === 'create')!.action).toBe(
      `check the key in ${app.newFile}: the test environment, a read request, the workspace and scope of ${app.old.id}`,
    );
    expect(plan.steps.find((step) => step.step === 'drain')!.action).toBe('wait 5m after the deploy');
    // Finding out that there is no key API: one read, which creates nothing.
    expect(service.requests.slice(requestsBefore).map((request) => `${request.method} ${request.path}`)).toEqual([`GET /v1/keys/${app.old.id}`]);
    expect(journals(env)).toEqual([]);
  });

  it('says how to continue without a secret on the command line: the old key given as --api-key is named in words', async () => {
    const env = environment();
    const app = application(env);
    const result = await svcInProcess(
      [
        'keys',
        'rotate',
        app.old.id,
        '--new-key-file',
        app.newFile,
        '--new-key-id',
        app.fresh.id,
        '--api-key',
        app.old.secret,
        '--deploy-cmd',
        app.deployCmd,
        '--drain-check-cmd',
        'false',
        '--poll-interval',
        '200ms',
        '--timeout',
        '1s',
        '--allow-scope-change',
        '--yes',
        '--json',
      ],
      { env, clock },
    );
    await app.stop();
    expect(result.code, result.stderr).toBe(ExitCode.drainTimedOut);
    const error = (JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { error: { code: string; hint: string } }).error;
    const rotation = /--resume (rot_\w+)/.exec(error.hint)![1]!;
    expect(error).toMatchObject({
      code: 'drain_timed_out',
      hint: `\`svc keys rotate --resume ${rotation} --timeout 1s --poll-interval 200ms --allow-scope-change\` (and the old key's secret, in --old-key-file FILE or --api-key: a request with it confirms the revocation) checks again`,
    });
    for (const secret of [app.old.secret, app.fresh.secret, admin.secret]) expect(result.stdout + result.stderr).not.toContain(secret);
  });

  /** A script's rotation to a key made in the dashboard, without the flags that say what svc could not establish: its error. */
  async function refusedFromScript(app: ReturnType<typeof application>) {
    const result = await svcInProcess(
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
        '--yes',
        '--json',
      ],
      { env: environment(), clock },
    );
    await app.stop();
    expect(result.code, result.stderr).toBe(ExitCode.rotationStepFailed);
    expect(service.isRevoked(app.old.id)).toBe(false);
    expect(readFileSync(app.appFile, 'utf8').trim()).toBe(app.old.secret);
    return (JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { error: { code: string; message: string; hint: string } }).error;
  }

  it('shows what a write that cannot succeed tells of the scope: a read-write key given for a read-only one is refused, whatever the service does not show', async () => {
    const app = application(environment(), { old: true });
    const reports = await reportsOf(app.old.secret);
    const error = await refusedFromScript(app);
    expect(error.code).toBe('new_key_check_failed');
    expect(error.message).toContain(
      `has another scope than ${app.old.id}: read-write, where ${app.old.id} is read-only, as a DELETE of a report that does not exist shows (403 forbidden with ${app.old.id}, 404 not_found with the given key)`,
    );
    expect(error.hint).toContain('--allow-scope-change');
    // The write named a report that does not exist: none was deleted.
    expect(await reportsOf(app.old.secret)).toEqual(reports);
  });

  it('from a script, what could not be established is still refused (exit 14), the part the service showed said, and the terminal named', async () => {
    const app = application(environment(), { old: true, fresh: true });
    const error = await refusedFromScript(app);
    expect(error.message).toContain(
      `could not be shown to be of ${app.old.id}'s scope (not compared: the service shows no scope of ${app.old.id}; both keys are read-only, as a DELETE of a report that does not exist shows (403 forbidden with ${app.old.id}, 403 forbidden with the given key))`,
    );
    expect(error.hint).toContain('run again with --allow-scope-change, or at a terminal without --yes, where svc asks');
  });

  it("needs the old key's secret to know its environment, and says so before anything happens", async () => {
    const env = environment();
    const app = application(env);
    await app.stop();
    const result = await svcInProcess(['keys', 'rotate', app.old.id, '--new-key-file', app.newFile, '--drain-wait', '1s', '--deploy-cmd', 'true', '--yes'], {
      env,
      clock,
    });
    expect(result.code).toBe(ExitCode.usage);
    expect(result.stderr).toContain('--old-key-file');
    expect(journals(env)).toEqual([]);
  });
});
