/**
 * `svc keys rotate` in-process when no journal records a key that a rotation of the same key made (issue 42,
 * item 5): the key the service shows is taken up or named, a second key never made; --new-key-file holding a
 * key is never replaced. The run on another runner after a SIGKILL: rotate-other-runner.binary.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import type { RotationRecord } from '../../../src/keys/journal.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { allKeys, createKeyWithAdmin, keyById, type RotationLine } from './fixtures.js';

let sandbox: InProcessSandbox;
let home: string;
let count = 0;

beforeAll(async () => {
  sandbox = await startSandboxInProcess({ log: undefined, plan: 'enterprise' });
  home = sandbox.env.HOME!;
});
afterAll(() => sandbox.stop());

function svc(args: string[], extra: Record<string, string> = {}) {
  return svcInProcess(args, { env: { ...sandbox.env, ...extra } });
}

function lastError(stdout: string): { code: string; message: string; hint: string } {
  return (JSON.parse(stdout.trim().split('\n').at(-1)!) as { error: { code: string; message: string; hint: string } }).error;
}

/** An old key, and a key made as a rotation of it on another runner would have made it, its secret in `file` when asked. */
async function earlierRotation(options: { secretInFile: boolean }) {
  count++;
  const old = await createKeyWithAdmin(sandbox, { name: `checkout ${count}` });
  const made = await createKeyWithAdmin(sandbox, {
    name: `checkout ${count} (rotation rot_00000000000000000${count.toString().padStart(3, '0')} of ${old.id})`,
  });
  const file = join(home, `earlier-${count}.key`);
  if (options.secretInFile) writeFileSync(file, `${made.secret}\n`, { mode: 0o600 });
  return { old, made, file, rotation: `rot_00000000000000000${count.toString().padStart(3, '0')}` };
}

describe('a key that a rotation of the same key made, which no journal here records', () => {
  it('is what --dry-run would take up, its rotation going on at its deploy; nothing is made or recorded', async () => {
    const { old, made, file, rotation } = await earlierRotation({ secretInFile: true });
    const before = (await allKeys(sandbox)).length;
    const plan = await svc(['keys', 'rotate', old.id, '--new-key-file', file, '--deploy-cmd', 'true', '--dry-run', '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const [notice, result] = plan.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(notice).toMatchObject({ event: 'notice', rotation, message: expect.stringContaining(`would take up ${made.id} (${made.prefix_hint})`) });
    expect(result).toMatchObject({ dry_run: true, rotation });
    expect((result!.steps as Array<{ step: string }>).map((step) => step.step)).toEqual(['deploy', 'verify', 'drain', 'revoke', 'confirm']);
    expect((await allKeys(sandbox)).length).toBe(before);
    expect(JSON.parse((await svc(['keys', 'rotations', '--json'])).stdout) as RotationRecord[]).not.toContainEqual(expect.objectContaining({ id: rotation }));
  });

  it('stops the run (exit 15), named with its hint and what to do, when two such keys are active; nothing is made', async () => {
    const { old, made, file } = await earlierRotation({ secretInFile: true });
    const second = await createKeyWithAdmin(sandbox, { name: `checkout ${count} (rotation rot_00000000000000000fff of ${old.id})` });
    const before = (await allKeys(sandbox)).length;
    const refused = await svc(['keys', 'rotate', old.id, '--new-key-file', file, '--deploy-cmd', 'true', '--yes', '--json']);
    expect(refused.code, refused.stderr).toBe(ExitCode.refused);
    const error = lastError(refused.stdout);
    expect(error.code).toBe('rotation_key_exists');
    expect(error.message).toContain(`${made.id} (${made.prefix_hint})`);
    expect(error.message).toContain(`${second.id} (${second.prefix_hint})`);
    expect(error.hint).toContain('svc keys revoke');
    expect(refused.stdout + refused.stderr).not.toContain(made.secret);
    expect((await allKeys(sandbox)).length).toBe(before);
    expect(readFileSync(file, 'utf8')).toBe(`${made.secret}\n`);
  });

  it('is no reason to stop once revoked: a rotation of the old key then makes its new key', async () => {
    const { old, made, file } = await earlierRotation({ secretInFile: false });
    await svc(['keys', 'revoke', made.id, '--yes']);
    expect((await keyById(sandbox, made.id)).status).toBe('revoked');
    const planned = await svc(['keys', 'rotate', old.id, '--new-key-file', file, '--dry-run', '--json']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(JSON.parse(planned.stdout)).toMatchObject({ dry_run: true, rotation: null });
  });
});

describe('the new key svc makes', () => {
  it("is named with the rotation's id and the old key's, within 100 characters however long the old key's name", async () => {
    const old = await createKeyWithAdmin(sandbox, {
      name: 'a service with a name as long as the service allows it to be, and then some more words'.slice(0, 100),
    });
    const file = join(home, 'long-name.key');
    const made = await svc(['keys', 'rotate', old.id, '--new-key-file', file, '--deploy-cmd', 'false', '--yes', '--json']);
    expect(made.code, made.stderr).toBe(ExitCode.rotationStepFailed);
    const rotation = String((JSON.parse(made.stdout.split('\n')[0]!) as RotationLine).rotation);
    const named = (await allKeys(sandbox)).find((key) => key.name?.includes(rotation))!;
    expect(named.name).toMatch(new RegExp(`^a service with .+ \\(rotation ${rotation} of ${old.id}\\)$`));
    expect(named.name!.length).toBeLessThanOrEqual(100);
    await svc(['keys', 'rotate', '--abort', rotation]);
  });
});

describe('--new-key-file holding a key', () => {
  it("is never replaced by a key svc makes: a resumed rotation whose new key's secret is lost stops (exit 15), the file and the recorded key kept", async () => {
    const old = await createKeyWithAdmin(sandbox, { name: 'file kept' });
    const file = join(home, 'file-kept.key');
    const stopped = await svc(['keys', 'rotate', old.id, '--new-key-file', file, '--deploy-cmd', 'false', '--yes', '--json']);
    expect(stopped.code, stopped.stderr).toBe(ExitCode.rotationStepFailed);
    const rotation = String((JSON.parse(stopped.stdout.split('\n')[0]!) as RotationLine).rotation);
    const journal = join(home, 'state', 'svc', 'rotations', `${rotation}.json`);
    const record = JSON.parse(readFileSync(journal, 'utf8')) as RotationRecord;
    // As a run that stopped before its deploy started, its file since given another key by hand.
    delete record.attempts.deploy;
    writeFileSync(journal, JSON.stringify(record), { mode: 0o600 });
    const another = await createKeyWithAdmin(sandbox, { name: 'another key put in the file' });
    writeFileSync(file, `${another.secret}\n`, { mode: 0o600 });
    const before = (await allKeys(sandbox)).length;

    const resumed = await svc(['keys', 'rotate', '--resume', rotation, '--deploy-cmd', 'true', '--yes', '--json']);
    expect(resumed.code, resumed.stderr).toBe(ExitCode.refused);
    expect(lastError(resumed.stdout)).toMatchObject({
      code: 'new_key_file_holds_key',
      message: expect.stringContaining(`${file} holds a key (${another.prefix_hint}) other than ${old.id}`),
    });
    expect(readFileSync(file, 'utf8')).toBe(`${another.secret}\n`);
    expect((await allKeys(sandbox)).length).toBe(before);
    expect((await keyById(sandbox, record.steps.create!.new_key.id!)).status).toBe('active');
  });
});
