/**
 * A key API that shows no `prefix_hint` (the specification shows no key field beyond the id), or one
 * in a form other than svc's: a rotation makes one key, keeps it, and completes. The real sandbox
 * behind a gateway that rewrites its key answers; the real binary.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { ExitCode } from '../../src/core/errors.js';
import type { RotationRecord } from '../../src/keys/journal.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RewritingGateway, startRewritingGateway } from '../helpers/rewriting-gateway.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { runSvc } from '../helpers/svc.js';
import { allKeys, createKeyWithAdmin, FAST, type RotationLine, startBackgroundClient } from '../commands/keys/fixtures.js';

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

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet', '--plan', 'enterprise']);
});
afterAll(() => sandbox.stop());

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
    const app = startBackgroundClient(sandbox, appFile);
    const deploy = `umask 077 && cat > "${appFile}.new" && mv "${appFile}.new" "${appFile}"`;
    const before = new Set((await allKeys(sandbox)).map((key) => key.id));
    const { SVC_PROFILE: _, ...user } = sandbox.env;
    const result = await runSvc(['keys', 'rotate', old.id, '--deploy-cmd', deploy, ...FAST, '--yes', '--json'], {
      env: { ...user, SVC_BASE_URL: gateway.url, SVC_API_KEY: old.secret, SVC_ADMIN_KEY: sandbox.keys.admin },
      killAfterMs: 60_000,
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
    const stopped = await runSvc(['keys', 'rotate', old.id, '--new-key-file', newFile, '--deploy-cmd', 'false', ...FAST, '--yes', '--json'], { env });
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

    const resumed = await runSvc(['keys', 'rotate', '--resume', rotation, '--deploy-cmd', 'true', ...FAST, '--yes', '--json'], { env });
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
    const plan = await runSvc(['keys', 'rotate', old.id, '--new-key-file', newFile, '--dry-run'], { env });
    // A deploy that fails stops the run after its first steps.
    const stopped = await runSvc(['keys', 'rotate', old.id, '--new-key-file', newFile, '--deploy-cmd', 'false', ...FAST, '--yes'], { env });
    const listed = await runSvc(['keys', 'rotations'], { env });
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
