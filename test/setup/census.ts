/**
 * What each test starts, for choosing its tier (docs/development.md, Tiers): child processes,
 * listening servers and outgoing connections, counted per test and appended as one JSON line per
 * test file to the file SVC_TEST_CENSUS names. Loaded only when that variable is set (vitest.config.ts).
 */
import childProcess, { ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { Server, Socket } from 'node:net';
import { afterAll, afterEach, beforeEach, expect } from 'vitest';

type Counts = { processes: number; servers: number; connections: number };

const zero = (): Counts => ({ processes: 0, servers: 0, connections: 0 });
let current = zero();
/** Started outside any one test: in beforeAll and afterAll hooks, or on import. */
const hooks = zero();
const tests: Record<string, Counts> = {};

function addToHooks(): void {
  for (const kind of Object.keys(hooks) as (keyof Counts)[]) hooks[kind] += current[kind];
}

/** Replaces the function `name` of `target` by one that counts its calls as `kind`. */
function count(target: object, name: string, kind: keyof Counts): void {
  const functions = target as Record<string, (...args: unknown[]) => unknown>;
  const original = functions[name]!;
  functions[name] = function (this: unknown, ...args: unknown[]): unknown {
    current[kind]++;
    return original.apply(this, args);
  };
}

count(ChildProcess.prototype, 'spawn', 'processes');
// The synchronous ones start their child without a ChildProcess.
for (const name of ['spawnSync', 'execFileSync', 'execSync']) count(childProcess, name, 'processes');
syncBuiltinESMExports();
count(Server.prototype, 'listen', 'servers');
count(Socket.prototype, 'connect', 'connections');

beforeEach(() => {
  addToHooks();
  current = zero();
});

afterEach(() => {
  tests[expect.getState().currentTestName ?? '(unnamed)'] = current;
  current = zero();
});

afterAll(() => {
  addToHooks();
  const file = expect.getState().testPath ?? '(unknown)';
  appendFileSync(process.env.SVC_TEST_CENSUS ?? '', `${JSON.stringify({ file, hooks, tests })}\n`);
});
