/**
 * Keeps a tier's files honest (docs/development.md, Tiers): a unit test starts no process and opens
 * no socket; an in-process test does not start svc (what a command starts itself, a deploy script or
 * the kit's Pact verifier, and a PostgreSQL of the test's own are allowed). Each tier's vitest project
 * sets SVC_TEST_TIER and loads this file; what the tier does not allow fails the test that tried it,
 * naming the tier its file belongs to.
 */
import childProcess, { ChildProcess } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { Server, Socket } from 'node:net';
import { SVC_BIN } from '../helpers/svc.js';

const tier = process.env.SVC_TEST_TIER;

function refusal(what: string, belongs: string): Error {
  return new Error(`a test of the ${tier} tier ${what}: its file belongs to the ${belongs} tier (see docs/development.md, Tiers)`);
}

/** Wraps the function `name` of `target` so that a call `refused` says is refused throws. */
function guard(target: object, name: string, refused: (args: unknown[]) => Error | undefined): void {
  const functions = target as Record<string, (...args: unknown[]) => unknown>;
  const original = functions[name]!;
  functions[name] = function (this: unknown, ...args: unknown[]): unknown {
    const error = refused(args);
    if (error) throw error;
    return original.apply(this, args);
  };
}

/** Whether a spawn's arguments (as any of child_process's functions takes them) start svc. */
const startsSvc = (args: unknown[]): boolean => JSON.stringify(args).includes(SVC_BIN);

if (tier === 'unit' || tier === 'in-process') {
  const refused = (args: unknown[]) =>
    tier === 'unit' ? refusal('starts no process', 'binary') : startsSvc(args) ? refusal('does not start svc', 'binary') : undefined;
  guard(ChildProcess.prototype, 'spawn', refused);
  // The synchronous ones start their child without a ChildProcess.
  for (const name of ['spawnSync', 'execFileSync', 'execSync']) guard(childProcess, name, refused);
  syncBuiltinESMExports();
}
if (tier === 'unit') {
  guard(Server.prototype, 'listen', () => refusal('opens no socket', 'in-process'));
  guard(Socket.prototype, 'connect', () => refusal('opens no socket', 'in-process'));
}
