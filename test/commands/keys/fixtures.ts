import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { Key, KeyWithSecret } from '../../../src/api/types.js';
import { ExitCode } from '../../../src/core/errors.js';
import type { TestSandbox } from '../../helpers/sandbox.js';
import { SVC_BIN } from '../../helpers/svc.js';

/** Short enough for tests, long enough that a request in flight is never mistaken for silence. */
export const FAST = ['--quiet-period', '1s', '--poll-interval', '200ms', '--timeout', '30s'];

export async function createKeyWithAdmin(sandbox: TestSandbox, body: Record<string, unknown>): Promise<KeyWithSecret> {
  const response = await sandbox.fetch('/v1/keys', {
    method: 'POST',
    key: sandbox.keys.admin,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST /v1/keys answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as KeyWithSecret;
}

export async function keyById(sandbox: TestSandbox, id: string): Promise<Key> {
  return (await (await sandbox.fetch(`/v1/keys/${id}`, { key: sandbox.keys.admin })).json()) as Key;
}

export async function allKeys(sandbox: TestSandbox): Promise<Key[]> {
  const keys: Key[] = [];
  let cursor = '';
  for (;;) {
    const page = (await (await sandbox.fetch(`/v1/keys?limit=100${cursor}`, { key: sandbox.keys.admin })).json()) as { data: Key[]; has_more: boolean };
    keys.push(...page.data);
    if (!page.has_more) return keys;
    cursor = `&starting_after=${page.data.at(-1)!.id}`;
  }
}

/**
 * An application that calls the API every 50 ms with whatever key its key file holds, as a service
 * that re-reads its secret would. It records every answer's status and which key was used.
 * `nextAnswer()` has it make a request at once, and resolves when the answer to it is in: a request
 * that read the key file after the call.
 */
export function startBackgroundClient(sandbox: Pick<TestSandbox, 'fetch'>, keyFile: string) {
  const answers: Array<{ status: number; key: string }> = [];
  const waiting: Array<() => void> = [];
  let wake: (() => void) | undefined;
  let running = true;
  const loop = (async () => {
    while (running) {
      const answered = waiting.splice(0);
      const key = readFileSync(keyFile, 'utf8').trim();
      const response = await sandbox.fetch('/v1/reports?limit=1', { key });
      await response.arrayBuffer();
      answers.push({ status: response.status, key });
      for (const resolve of answered) resolve();
      if (waiting.length === 0) await Promise.race([sleep(50), new Promise<void>((resolve) => (wake = resolve))]);
    }
  })();
  return {
    answers,
    authFailures: () => answers.filter((answer) => answer.status === 401 || answer.status === 403),
    usedKeys: () => [...new Set(answers.map((answer) => answer.key))],
    nextAnswer(): Promise<void> {
      if (!running) return Promise.resolve();
      return new Promise((resolve) => {
        waiting.push(resolve);
        wake?.();
      });
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

export type RotationLine = Record<string, unknown> & { event?: string; step?: string; number?: number; rotation?: string };

/** The real `svc` binary, its stdout read as JSON lines as they come, so a test can kill it at a chosen moment. */
export function spawnSvc(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [SVC_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: RotationLine[] = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const listeners: Array<(line: RotationLine) => void> = [];
  createInterface({ input: child.stdout! }).on('line', (text) => {
    const line = JSON.parse(text) as RotationLine;
    lines.push(line);
    for (const listener of listeners) listener(line);
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code, signal) => resolve(signal ? null : code)));
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    /** Resolves with the first line that matches, or when the process ends without one. */
    lineWhere(match: (line: RotationLine) => boolean): Promise<RotationLine | undefined> {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => {
        listeners.push((line) => match(line) && resolve(line));
        void exited.then(() => resolve(undefined));
      });
    },
  };
}

/** util-linux `script`, which gives a command a terminal. */
export const hasScript = spawnSync('script', ['--version']).status === 0;

/**
 * Runs svc with a terminal (under `script`), as a person would, answering each prompt as it appears.
 * Returns what the terminal showed, stdout and stderr together.
 */
export function runSvcOnTerminal(
  args: string[],
  env: Record<string, string>,
  answers: Array<[prompt: string, answer: string]>,
): Promise<{ code: number | null; screen: string }> {
  const quoted = [process.execPath, SVC_BIN, ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  // A person at a terminal: not CI, where svc never prompts, whatever the terminal.
  const personal: Record<string, string> = { ...env, TERM: 'xterm' };
  delete personal.CI;
  // A wide terminal, so that no prompt is wrapped in the middle of the words a test waits for.
  const child = spawn('script', ['-qfec', `stty cols 400; exec ${quoted}`, '/dev/null'], { env: personal, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let answered = 0;
  let searchFrom = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    screen += chunk;
    const next = answers[answered];
    if (!next) return;
    const at = screen.indexOf(next[0], searchFrom);
    if (at < 0) return;
    searchFrom = at + next[0].length;
    answered++;
    child.stdin.write(next[1]);
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, screen })));
}

/** The JSON a command printed, once it is shown to have succeeded. */
export function parsedOutput<T>(result: { code: number | null; stdout: string; stderr: string }): T {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** Ids and statuses of the workspace's keys: what a command that makes or revokes keys changes. */
export async function keyStatuses(sandbox: TestSandbox): Promise<string[]> {
  return (await allKeys(sandbox)).map((key) => `${key.id} ${key.status}`).sort();
}

/** `svc keys <verb>` says clearly that it needs the admin key when given another: in SVC_ADMIN_KEY, and on argv. */
export async function expectAdminKeyNeeded(
  sandbox: TestSandbox,
  run: (args: string[], extra?: Record<string, string>) => Promise<{ code: number; stdout: string; stderr: string }>,
  args: string[],
): Promise<void> {
  const withTestKey = await run([...args, '--json'], { SVC_ADMIN_KEY: sandbox.keys.test });
  expect(withTestKey.code).toBe(ExitCode.permission);
  expect(JSON.parse(withTestKey.stdout).error).toMatchObject({ code: 'not_an_admin_key' });
  expect(withTestKey.stderr).toContain('key management needs an admin key');
  expect(withTestKey.stderr).not.toContain(sandbox.keys.test);

  const onArgv = await run([...args, '--admin-key', sandbox.keys.read_only]);
  expect(onArgv.code).toBe(ExitCode.permission);
  expect(onArgv.stderr).toContain('visible to other local users');
  expect(onArgv.stderr).toContain('is a test key');
}
