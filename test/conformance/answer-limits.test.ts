/**
 * The kit reads an implementation's answers within the same limits as svc's client: a whole answer
 * within --answer-timeout, however it drips, and never more than 64 MiB of one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { makeCertificate } from '../helpers/tls.js';

const API_KEY = `svc_test_${'k'.repeat(32)}`;
const MIB = 1024 * 1024;
const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function implementation(answer: (response: ServerResponse) => void): Promise<{ server: TestServer; env: Record<string, string>; caCert: string }> {
  const certificate = await makeCertificate();
  const server = await startServer((_request, response) => answer(response), certificate);
  closers.push(() => server.close());
  const env = isolatedEnv({ SVC_API_KEY: API_KEY });
  const caCert = join(env.HOME!, 'ca.pem');
  writeFileSync(caCert, certificate.cert);
  return { server, env, caCert };
}

it('gives up on an answer that drips, at --answer-timeout, with a network error that says so', async () => {
  const { server, env, caCert } = await implementation((response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('[');
    // One byte every 100 ms, for ever: every read succeeds, the answer never ends.
    const drip = setInterval(() => response.write(' '), 100);
    response.on('close', () => clearInterval(drip));
  });
  const result = await runSvc(
    ['contract', 'verify', '--base-url', server.url, '--ca-cert', caCert, '--answer-timeout', '2s', '--only', 'reports.list', '--json'],
    {
      env,
    },
  );
  expect(result.code, result.stderr).toBe(ExitCode.network);
  const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string; hint: string } };
  expect(error.code).toBe('network_error');
  expect(error.message).toBe(`cannot reach ${server.url}: no whole answer within 2 s`);
  expect(error.hint).toContain('--answer-timeout');
  expect(server.requests).toHaveLength(1);
});

it('stops reading an answer past 64 MiB and closes the connection', async () => {
  let written = 0;
  let closedAt: number | undefined;
  const { server, env, caCert } = await implementation((response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(MIB, 0x20);
    // 400 MiB if nobody stops reading; the connection closing ends it.
    const more = () => {
      while (written < 400 * MIB && !response.destroyed) {
        written += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', more);
      }
      response.end();
    };
    response.on('close', () => (closedAt ??= written));
    more();
  });
  const result = await runSvc(['contract', 'verify', '--base-url', server.url, '--ca-cert', caCert, '--only', 'reports.list', '--json'], { env });
  expect(result.code, result.stderr).toBe(ExitCode.network);
  const { error } = JSON.parse(result.stdout) as { error: { message: string } };
  expect(error.message).toContain('sent an answer of more than 64 MiB');
  // What was written before the kit closed: 64 MiB read, and what the sockets' buffers held.
  expect(closedAt).toBeDefined();
  expect(closedAt!).toBeLessThan(100 * MIB);
});
