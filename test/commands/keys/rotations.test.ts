/** `svc keys rotations` in-process: the rotations started from this machine's state directory, and where each stands. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import type { RotationRecord } from '../../../src/keys/journal.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { createKeyWithAdmin, type RotationLine } from './fixtures.js';

let sandbox: InProcessSandbox;

beforeAll(async () => {
  sandbox = await startSandboxInProcess({ log: undefined });
});
afterAll(() => sandbox.stop());

function svc(args: string[]) {
  return svcInProcess(args, { env: sandbox.env });
}

describe('svc keys rotations', () => {
  it('lists a rotation stopped at its deploy, with its key and step, for people and as JSON; none of its secrets', async () => {
    const old = await createKeyWithAdmin(sandbox, { name: 'listed' });
    const newFile = join(sandbox.env.HOME!, 'listed.new.key');
    // A deploy that fails stops the run after the key was made and its secret saved.
    const stopped = await svc(['keys', 'rotate', old.id, '--new-key-file', newFile, '--deploy-cmd', 'false', '--yes', '--json']);
    expect(stopped.code, stopped.stderr).toBe(ExitCode.rotationStepFailed);
    const rotation = String((JSON.parse(stopped.stdout.split('\n')[0]!) as RotationLine).rotation);

    const listed = await svc(['keys', 'rotations']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${rotation}\\t${old.id}.*\\tat step 3/7 \\(deploy\\)`));

    const records = JSON.parse((await svc(['keys', 'rotations', '--json'])).stdout) as RotationRecord[];
    expect(records.find((record) => record.id === rotation)).toMatchObject({ status: 'in_progress', old_key: { id: old.id } });
    expect(listed.stdout + JSON.stringify(records)).not.toContain(old.secret);
  });
});
