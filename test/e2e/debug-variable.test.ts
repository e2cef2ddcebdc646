/**
 * DEBUG, the `debug` package's switch, as a user may set it to see what svc does: oclif's loggers
 * would print argv whole (the command line's keys, webhook secrets and connection strings). The real
 * binary, given secrets by flag, by variable and in a PostgreSQL URL, prints none of them.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { freePort, json, startServer, type TestServer } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

/** Secrets of no shape svc would know them by: only their being given can hide them. */
const secret = () => randomBytes(12).toString('hex');
const API_KEY = `svc_test_${secret()}`;
const ADMIN_KEY = `svc_admin_${secret()}`;
const WEBHOOK_SECRET = secret();
const ENV_WEBHOOK_SECRET = secret();
const PASSWORD = secret();

let server: TestServer;
let closedPort: number;

beforeAll(async () => {
  server = await startServer((_request, response) => json(response, 200, { object: 'list', data: [], has_more: false }));
  closedPort = await freePort();
});

afterAll(() => server?.close());

describe.each(['*', 'oclif*', 'svc*'])('DEBUG=%s', (debug) => {
  const env = () => isolatedEnv({ DEBUG: debug, SVC_ADMIN_KEY: ADMIN_KEY, SVC_WEBHOOK_SECRET: ENV_WEBHOOK_SECRET });

  it.each([
    ['reports list --api-key', ExitCode.ok, () => ['reports', 'list', '--base-url', server.url, '--api-key', API_KEY]],
    ['webhooks verify --secret', ExitCode.verificationFailed, () => ['webhooks', 'verify', '--secret', WEBHOOK_SECRET, '--header', 't=1,v1=00']],
    [
      'webhooks listen --store postgres://…',
      ExitCode.config,
      () => ['webhooks', 'listen', '--port', '0', '--store', `postgres://svc:${PASSWORD}@127.0.0.1:${closedPort}/svc`],
    ],
  ])('%s prints no secret', async (_name, code, args) => {
    const result = await runSvc(args(), { env: env(), input: '{}' });
    expect(result.code, result.stderr).toBe(code);
    const output = result.stdout + result.stderr;
    for (const given of [API_KEY, ADMIN_KEY, WEBHOOK_SECRET, ENV_WEBHOOK_SECRET, PASSWORD]) expect(output).not.toContain(given);
  });
});
