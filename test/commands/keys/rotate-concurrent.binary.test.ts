/**
 * Two `svc keys rotate` of one key started together against a key API that answers slowly (1.5 s):
 * exactly one proceeds (issue 22: both used to run, made two new keys and wrote both to one file).
 * The sandbox behind a proxy of 127.0.0.1 that holds every answer back; the real binary (needs `npm run build`).
 */
import { request as httpsRequest } from 'node:https';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactKey } from '../../../src/core/redaction.js';
import { ExitCode } from '../../../src/core/errors.js';
import { type RunningSandbox, startSandboxProcess } from '../../helpers/sandbox.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { allKeys, createKeyWithAdmin, FAST, keyById, spawnSvc, startBackgroundClient } from './fixtures.js';

const DELAY_MS = 1500;

let sandbox: RunningSandbox;
let slow: TestServer;

/** Plain HTTP on 127.0.0.1 in front of the sandbox, each answer sent `delayMs` after the request came. */
function startSlowProxy(target: RunningSandbox, delayMs: number): Promise<TestServer> {
  const ca = readFileSync(target.caCert, 'utf8');
  return startServer((incoming, response) => {
    void sleep(delayMs).then(() => {
      const { host: _host, connection: _connection, ...headers } = incoming.headers;
      const forwarded = httpsRequest(new URL(incoming.path, target.url), { method: incoming.method, headers, ca }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      forwarded.end(incoming.raw);
    });
  });
}

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet', '--plan', 'enterprise']);
  slow = await startSlowProxy(sandbox, DELAY_MS);
});
afterAll(async () => {
  await slow.close();
  await sandbox.stop();
});

describe('two rotations of one key started together against a key API answering in 1.5 s', () => {
  it('exactly one proceeds: one new key, its secret in the file, the other run refused before it plans anything', async () => {
    const old = await createKeyWithAdmin(sandbox, { name: 'rotated twice at once' });
    const file = join(sandbox.env.HOME!, 'twice.key');
    writeFileSync(file, `${old.secret}\n`, { mode: 0o600 });
    const env = { ...sandbox.env, SVC_BASE_URL: slow.url, SVC_API_KEY: old.secret, SVC_ADMIN_KEY: sandbox.keys.admin };
    const args = ['keys', 'rotate', old.id, '--new-key-file', file, '--deploy-cmd', 'true', ...FAST, '--yes', '--json'];
    // The application reads its key from the file that the rotation writes the new key to.
    const app = startBackgroundClient(sandbox, file);
    const runs = [spawnSvc(args, env), spawnSvc(args, env)];
    const codes = await Promise.all(runs.map((run) => run.exited));
    await app.stop();
    expect([...codes].sort(), runs.map((run) => run.stderr()).join('\n')).toEqual([0, ExitCode.refused]);
    const loser = runs[codes.indexOf(ExitCode.refused)]!;
    expect(loser.lines).toEqual([expect.objectContaining({ error: expect.objectContaining({ code: 'rotation_in_progress' }) })]);

    const made = (await allKeys(sandbox)).filter((key) => key.name?.startsWith('rotated twice at once (rotation'));
    expect(made).toHaveLength(1);
    expect(made[0]!.status).toBe('active');
    expect(redactKey(readFileSync(file, 'utf8').trim())).toBe(made[0]!.prefix_hint);
    expect((await keyById(sandbox, old.id)).status).toBe('revoked');
    expect(app.authFailures()).toEqual([]);
  }, 120_000);
});
