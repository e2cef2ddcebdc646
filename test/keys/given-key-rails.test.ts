/**
 * The rails of `keys rotate` around what it is given: a key made elsewhere (another workspace's,
 * another scope) is not deployed, and a journal edited by someone else does not choose what svc
 * revokes. The real sandbox, which shows its keys and their scopes; the real binary.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { redactKey } from '../../src/core/redaction.js';
import type { RotationRecord } from '../../src/keys/journal.js';
import { type RewritingGateway, startRewritingGateway } from '../helpers/rewriting-gateway.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { allKeys, createKeyWithAdmin, FAST, keyById, type RotationLine, startBackgroundClient } from '../commands/keys/fixtures.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet', '--plan', 'enterprise']);
});
afterAll(() => sandbox.stop());

let count = 0;
/** A key of the sandbox's workspace to rotate, and the files of a rotation of it. */
async function rotation(body: Record<string, unknown> = {}) {
  const name = `rails ${++count}`;
  const old = await createKeyWithAdmin(sandbox, { name, ...body });
  const home = sandbox.env.HOME!;
  const deployed = join(home, `${count}.deployed`);
  return { old, newFile: join(home, `${count}.new.key`), deployed, deploy: `cat > "${deployed}"` };
}

const rotate = (args: string[], apiKey: string) =>
  runSvc(['keys', 'rotate', ...args, ...FAST, '--yes', '--json'], { env: { ...sandbox.env, SVC_API_KEY: apiKey } });
const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RotationLine);

describe('a key given in --new-key-file', () => {
  it("of another workspace is refused where the key API shows the workspace's keys, before anything is deployed or revoked", async () => {
    const { old, newFile, deployed, deploy } = await rotation();
    writeFileSync(newFile, `${sandbox.keys.other_workspace}\n`, { mode: 0o600 });
    const result = await rotate([old.id, '--new-key-file', newFile, '--deploy-cmd', deploy, '--drain-wait', '1s'], old.secret);
    expect(result.code, result.stderr).toBe(ExitCode.rotationStepFailed);
    expect(result.stderr).toContain(`is not among the keys of ${old.id}'s workspace that the key API shows`);
    expect(existsSync(deployed)).toBe(false);
    expect((await keyById(sandbox, old.id)).status).toBe('active');
  });

  it('with another scope than the old key is refused, and taken with --allow-scope-change', async () => {
    const { old, newFile, deployed, deploy } = await rotation();
    const readOnly = await createKeyWithAdmin(sandbox, { name: `read-only ${count}`, read_only: true });
    writeFileSync(newFile, `${readOnly.secret}\n`, { mode: 0o600 });
    const refused = await rotate([old.id, '--new-key-file', newFile, '--deploy-cmd', deploy, '--drain-wait', '1s'], old.secret);
    expect(refused.code, refused.stderr).toBe(ExitCode.rotationStepFailed);
    expect(refused.stderr).toContain(`has another scope than ${old.id}: read-only, any IP, where the old key is read-write, any IP`);
    expect(existsSync(deployed)).toBe(false);

    const taken = await rotate([old.id, '--new-key-file', newFile, '--deploy-cmd', 'false', '--drain-wait', '1s', '--allow-scope-change'], old.secret);
    expect(lines(taken.stdout).find((line) => line.step === 'create')).toMatchObject({ event: 'step_done' });
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

  /** The real binary through the gateway, in a home of its own. */
  const rotateThrough = (args: string[], apiKey: string) =>
    runSvc(['keys', 'rotate', ...args, ...FAST, '--yes', '--json'], {
      env: isolatedEnv({ SVC_BASE_URL: gateway.url, SVC_API_KEY: apiKey, SVC_ADMIN_KEY: sandbox.keys.admin }),
    });
  const allowAll = ['--allow-unverified-workspace', '--allow-scope-change'];

  it(`an IP-locked old key given another workspace's key: refused before anything is deployed; with the flags that say what svc could not establish, ${withFlags}`, async () => {
    const { old, newFile, deployed, deploy } = await rotation({ allowed_ips: ['203.0.113.7'] });
    writeFileSync(newFile, `${sandbox.keys.other_workspace}\n`, { mode: 0o600 });
    const refused = await rotateThrough([old.id, '--new-key-file', newFile, '--deploy-cmd', deploy, '--drain-wait', '1s'], old.secret);
    expect(refused.code, refused.stderr).toBe(ExitCode.rotationStepFailed);
    expect(refused.stderr).toContain(refusal(old.id));
    expect(existsSync(deployed)).toBe(false);
    expect((await keyById(sandbox, old.id)).status).toBe('active');

    const flagged = await rotateThrough([old.id, '--new-key-file', newFile, '--deploy-cmd', deploy, '--drain-wait', '1s', ...allowAll], old.secret);
    expect(existsSync(deployed), flagged.stderr).toBe(withFlags === 'deployed');
  });

  it('a read-only key given for a read-write one: refused, naming the flag it needs, and taken with it', async () => {
    const { old, newFile, deployed, deploy } = await rotation();
    const readOnly = await createKeyWithAdmin(sandbox, { name: `read-only ${count}`, read_only: true });
    writeFileSync(newFile, `${readOnly.secret}\n`, { mode: 0o600 });
    const refused = await rotateThrough([old.id, '--new-key-file', newFile, '--deploy-cmd', deploy, '--drain-wait', '1s'], old.secret);
    expect(refused.code, refused.stderr).toBe(ExitCode.rotationStepFailed);
    expect(refused.stderr).toContain(`could not be shown to be of ${old.id}'s`);
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
    const { old, newFile } = await rotation({ read_only: true });
    const env = isolatedEnv({ SVC_BASE_URL: gateway.url, SVC_API_KEY: old.secret, SVC_ADMIN_KEY: sandbox.keys.admin });
    const before = (await allKeys(sandbox)).length;
    const refused = await runSvc(['keys', 'rotate', old.id, '--new-key-file', newFile, '--deploy-cmd', 'true', ...FAST, '--yes', '--json'], { env });
    expect(refused.code, refused.stderr).toBe(ExitCode.rotationStepFailed);
    expect(refused.stderr).toContain(`the service shows no scope (read-only, IP list) of ${old.id}`);
    expect((await allKeys(sandbox)).length, 'keys created').toBe(before);

    // The application re-reads its key file: the deploy replaces it, and its use of the new key ends the drain.
    writeFileSync(newFile, `${old.secret}\n`, { mode: 0o600 });
    const app = startBackgroundClient(sandbox, newFile);
    const taken = await runSvc(['keys', 'rotate', old.id, '--deploy-cmd', 'true', '--allow-scope-change', ...FAST, '--yes', '--json'], { env });
    await app.stop();
    expect(taken.code, taken.stderr).toBe(0);
    expect((await allKeys(sandbox)).length, 'keys created').toBe(before + 1);
  });
});

describe('a journal', () => {
  /** A rotation stopped at its deploy (a command that fails), its key made and saved, and its journal. */
  async function stopped() {
    const { old, newFile } = await rotation();
    const result = await rotate([old.id, '--new-key-file', newFile, '--deploy-cmd', 'false'], old.secret);
    expect(result.code, result.stderr).toBe(ExitCode.rotationStepFailed);
    const id = String(lines(result.stdout)[0]!.rotation);
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
    expect(aborted.stderr).toContain(`new_key_name does not end with " (rotation ${id})"`);
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
