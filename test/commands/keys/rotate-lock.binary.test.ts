/**
 * The rotation lock under real contention: processes of their own, released at the same moment,
 * race for a lock whose holder was killed. Needs `npm run build` (the racers load dist/).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const JOURNAL = fileURLToPath(new URL('../../../dist/keys/file-journal.js', import.meta.url));

/** Takes or releases the lock of the rotation named on each line of its stdin, and answers on stdout. */
const RACER = `
import { createInterface } from 'node:readline';
const { FileJournal } = await import(${JSON.stringify(JOURNAL)});
const journal = new FileJournal(process.env.ROTATIONS_DIR);
let release;
process.stdout.write('ready\\n');
for await (const line of createInterface({ input: process.stdin })) {
  const [command, id] = line.split(' ');
  if (command === 'lock') {
    try {
      release = (await journal.lock(id)).release;
      process.stdout.write('won\\n');
    } catch (error) {
      process.stdout.write(error.code === 'rotation_in_progress' ? 'refused\\n' : \`failed \${error.message}\\n\`);
    }
  } else {
    await release?.();
    release = undefined;
    process.stdout.write('released\\n');
  }
}
`;

interface Racer {
  child: ChildProcessWithoutNullStreams;
  answer(): Promise<string>;
}

function startRacer(env: Record<string, string>): Racer {
  const child = spawn(process.execPath, ['--input-type=module', '-e', RACER], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: Interface = createInterface({ input: child.stdout });
  const answers: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  lines.on('line', (line) => (waiting.length ? waiting.shift()!(line) : answers.push(line)));
  return { child, answer: () => (answers.length ? Promise.resolve(answers.shift()!) : new Promise((resolve) => waiting.push(resolve))) };
}

const RACERS = 4;
const TRIES = 40;
let env: Record<string, string>;
let racers: Racer[];

beforeAll(async () => {
  const home = mkdtempSync(join(tmpdir(), 'svc-lock-'));
  env = { ...(process.env as Record<string, string>), ROTATIONS_DIR: join(home, 'rotations') };
  racers = Array.from({ length: RACERS }, () => startRacer(env));
  expect(await Promise.all(racers.map((racer) => racer.answer()))).toEqual(Array(RACERS).fill('ready'));
});
afterAll(() => {
  for (const racer of racers) racer.child.kill();
});

/** A rotation lock whose holder was killed with SIGKILL while it held it. */
async function lockOfKilledHolder(id: string): Promise<void> {
  const holder = startRacer(env);
  expect(await holder.answer()).toBe('ready');
  holder.child.stdin.write(`lock ${id}\n`);
  expect(await holder.answer()).toBe('won');
  const exited = new Promise((resolve) => holder.child.once('exit', resolve));
  holder.child.kill('SIGKILL');
  await exited;
}

describe('the rotation lock', () => {
  it(`goes to exactly one of ${RACERS} processes racing for it when its holder was killed, ${TRIES} times out of ${TRIES}`, async () => {
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const id = `rot_${attempt.toString(16).padStart(20, '0')}`;
      await lockOfKilledHolder(id);
      for (const racer of racers) racer.child.stdin.write(`lock ${id}\n`);
      const answers = await Promise.all(racers.map((racer) => racer.answer()));
      outcomes.push(answers.sort().join(' '));
      for (const racer of racers) racer.child.stdin.write('release\n');
      await Promise.all(racers.map((racer) => racer.answer()));
    }
    const oneWinner = ['refused', 'refused', 'refused', 'won'].join(' ');
    expect(outcomes).toEqual(Array(TRIES).fill(oneWinner));
  }, 120_000);
});
