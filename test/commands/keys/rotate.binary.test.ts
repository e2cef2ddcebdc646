/**
 * What only a process of `svc keys rotate` shows: Ctrl-C (SIGINT) during the drain, and a person at a
 * real terminal watching the drain count down. The rest: rotate.test.ts, in-process.
 */
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import type { RotationRecord } from '../../../src/keys/journal.js';
import { type RunningSandbox, startSandboxProcess } from '../../helpers/sandbox.js';
import { runSvc } from '../../helpers/svc.js';
import { createKeyWithAdmin, FAST, hasScript, keyById, type RotationLine, runSvcOnTerminal, spawnSvc, startBackgroundClient } from './fixtures.js';

let sandbox: RunningSandbox;
let home: string;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet', '--plan', 'enterprise']);
  home = sandbox.env.HOME!;
});
afterAll(() => sandbox.stop());

function svc(args: string[], extra: Record<string, string> = {}) {
  return runSvc(args, { env: { ...sandbox.env, ...extra } });
}

function jsonLines(stdout: string): RotationLine[] {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RotationLine);
}

function journal(id: string): RotationRecord {
  return JSON.parse(readFileSync(join(home, 'state', 'svc', 'rotations', `${id}.json`), 'utf8')) as RotationRecord;
}

async function appKey(name: string) {
  const key = await createKeyWithAdmin(sandbox, { name });
  const file = join(home, `${name}.key`);
  writeFileSync(file, `${key.secret}\n`, { mode: 0o600 });
  return { key, file };
}

describe('svc keys rotate, interrupted or on a terminal', () => {
  it('stops cleanly on Ctrl-C during the drain (exit 130, journal consistent), and --resume finishes', async () => {
    const { key: old, file } = await appKey('interrupted');
    const app = startBackgroundClient(sandbox, file);
    const newFile = join(home, 'interrupted.new.key');
    const run = spawnSvc(['keys', 'rotate', old.id, '--new-key-file', newFile, ...FAST, '--yes', '--json'], sandbox.env);
    const waiting = await run.lineWhere((line) => line.event === 'drain_progress');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(ExitCode.interrupted);
    const rotation = waiting!.rotation as string;
    expect(run.lines.at(-1)!.error).toMatchObject({ code: 'interrupted' });
    expect(run.stderr()).toContain(`svc keys rotate --resume ${rotation}`);
    const record = journal(rotation);
    expect(record.steps.verify).toBeDefined();
    expect(record.steps.drain).toBeUndefined();
    // Stopped cleanly, the run no longer names itself the rotation's holder (the --resume below shows the lock is free).
    expect(readdirSync(join(home, 'state', 'svc', 'rotations')).filter((name) => name.endsWith('.holder'))).toEqual([]);
    expect((await keyById(sandbox, old.id)).status).toBe('active');

    copyFileSync(newFile, file);
    const resumed = await svc(['keys', 'rotate', '--resume', old.id, ...FAST, '--json']);
    await app.stop();
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(jsonLines(resumed.stdout)[0]).toMatchObject({ event: 'started', rotation, resumed: true, next_step: 'drain' });
    expect((await keyById(sandbox, old.id)).status).toBe('revoked');
    expect(app.authFailures()).toEqual([]);
  });

  it.skipIf(!hasScript)('asks a person to confirm the deploy, counts the drain down live, and asks again before a --force revocation', async () => {
    const { key: old, file } = await appKey('on a terminal');
    const busy = startBackgroundClient(sandbox, file);
    const newFile = join(home, 'terminal.new.key');
    const first = await runSvcOnTerminal(
      ['keys', 'rotate', old.id, '--new-key-file', newFile, '--quiet-period', '1m', '--poll-interval', '200ms', '--timeout', '2500ms'],
      sandbox.env,
      [['Is it deployed?', 'y\r']],
    );
    expect(first.code, first.screen).toBe(ExitCode.drainTimedOut);
    for (const left of ['0:03', '0:02', '0:01']) {
      expect(first.screen).toMatch(
        new RegExp(`\\r\\x1b\\[2Kdrain {2}old key silent 0:0\\d of 1:00 \\(last use from 127\\.0\\.0\\.1\\) · new key used: not yet · gives up in ${left}`),
      );
    }

    const forced = await runSvcOnTerminal(['keys', 'rotate', '--resume', old.id, '--poll-interval', '200ms', '--force'], sandbox.env, [['anyway?', 'n\r']]);
    await busy.stop();
    expect(forced.code, forced.screen).toBe(ExitCode.failure);
    expect(forced.screen).toContain(`Not drained: ${old.id} was used`);
    expect(forced.screen).toContain('stopped at your answer');
    expect((await keyById(sandbox, old.id)).status).toBe('active');
  });
});
