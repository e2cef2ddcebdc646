/**
 * The kit's signature checks through the real binary, against the real sandbox told to sign v1 in
 * base64: level spec takes it and says so; level strict wants openapi.yaml's hex and says that what
 * came is a valid HMAC-SHA256 in base64; with --signature-encoding hex its deliveries do not verify,
 * so they are noise, as an invalid signature's are: the event checks are inconclusive, never passed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { freePort } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

const SECRET = 'whsec_signaturelevels0123456789abcdefghi';

let sandbox: RunningSandbox | undefined;
afterAll(async () => {
  await sandbox?.stop();
});

interface Check {
  id: string;
  status: string;
  detail: string;
}

describe('svc contract verify against an implementation that signs v1 in base64', () => {
  it('passes it at level spec naming the encoding, fails it at level strict for the encoding only, and passes nothing with --signature-encoding hex', async () => {
    const port = await freePort();
    sandbox = await startSandboxProcess(
      ['--webhook-url', `http://127.0.0.1:${port}/`, '--webhook-secret', SECRET, '--signature-encoding', 'base64', '--quiet'],
      isolatedEnv(),
    );
    const env = isolatedEnv({ SVC_API_KEY: sandbox.keys.test, SVC_WEBHOOK_SECRET: SECRET });
    const kit = async (...args: string[]) => {
      const result = await runSvc(
        ['contract', 'verify', '--base-url', sandbox!.url, '--ca-cert', sandbox!.caCert, '--webhook-port', String(port), '--fast', '--json', ...args],
        {
          env,
        },
      );
      return { code: result.code, checks: Object.fromEntries((JSON.parse(result.stdout).checks as Check[]).map((check) => [check.id, check])) };
    };

    const strict = await kit(
      '--level',
      'strict',
      '--only',
      'events.report-completed-fields,events.signature-valid,strict.signature-header,strict.signature-valid',
    );
    expect(strict.code).toBe(ExitCode.nonConformant);
    expect(strict.checks['events.signature-valid']).toMatchObject({
      status: 'passed',
      detail: expect.stringMatching(/^\d+ deliver(y|ies) signed with HMAC-SHA256 over <t>\.<raw body>, in base64$/),
    });
    expect(strict.checks['strict.signature-header']).toMatchObject({ status: 'failed' });
    expect(strict.checks['strict.signature-valid']).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(
        /^expected HMAC-SHA256 with the webhook secret over '<t>\.<raw body>', hex, within 300 s; got HMAC-SHA256 over <t>\.<raw body>, in base64, which level spec takes/,
      ),
    });

    const pinned = await kit('--signature-encoding', 'hex', '--only', 'events.report-completed-fields,events.signature-valid');
    expect(pinned.code).toBe(ExitCode.inconclusive);
    expect(pinned.checks['events.signature-valid']).toMatchObject({ status: 'inconclusive' });
    expect(pinned.checks['events.report-completed-fields']).toMatchObject({ status: 'inconclusive' });
  });
});
