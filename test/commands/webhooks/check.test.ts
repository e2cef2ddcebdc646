import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { signatureHeader, verifySignature } from '../../../src/webhooks/signature.js';
import { startListenInProcess, stoppedAfterEachTest } from '../../helpers/listen.js';
import { startServer } from '../../helpers/server.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

const SECRET = 'whsec_commands0123456789abcdefghijklmnop';

const { listen, stopAfterTest } = stoppedAfterEachTest(SECRET, startListenInProcess);

describe('svc webhooks check', () => {
  it('passes svc webhooks listen, one line per verdict', async () => {
    const running = await listen();
    const result = await svcInProcess(['webhooks', 'check', `${running.url}/hooks`], { env: isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET }) });
    expect(result.code).toBe(0);
    const verdicts = result.stdout.trim().split('\n');
    expect(verdicts.map((line) => line.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'PASS accepts_valid_event',
      'PASS accepts_several_v1',
      'PASS accepts_short_completed',
      'PASS accepts_unlisted_kind',
      'PASS rejects_bad_signature',
      'PASS rejects_missing_signature',
      'PASS rejects_stale_timestamp',
      'PASS rejects_future_timestamp',
      'PASS acknowledges_duplicate',
    ]);
  });

  it('fails an endpoint that accepts everything, and one that only looks at the first v1', async () => {
    const lax = await startServer((_request, response) => response.writeHead(200).end());
    stopAfterTest(() => lax.close());
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const result = await svcInProcess(['webhooks', 'check', lax.url, '--json'], { env });
    expect(result.code).toBe(ExitCode.verificationFailed);
    const graded = JSON.parse(result.stdout);
    expect(graded.passed).toBe(false);
    expect(Object.fromEntries(graded.verdicts.map((verdict: { check: string; passed: boolean }) => [verdict.check, verdict.passed]))).toEqual({
      accepts_valid_event: true,
      accepts_several_v1: true,
      accepts_short_completed: true,
      accepts_unlisted_kind: true,
      rejects_bad_signature: false,
      rejects_missing_signature: false,
      rejects_stale_timestamp: false,
      rejects_future_timestamp: false,
      acknowledges_duplicate: true,
    });

    // Checks the timestamp and the first v1 only.
    const firstOnly = await startServer((request, response) => {
      const [t = '', v1 = ''] = String(request.headers['service-signature'] ?? '').split(',');
      const timestamp = Number(t.slice(2));
      const fresh = Math.abs(Date.now() / 1000 - timestamp) <= 300;
      response.writeHead(fresh && signatureHeader(SECRET, request.raw, timestamp).endsWith(v1.slice(3)) && v1 !== '' ? 200 : 400).end();
    });
    stopAfterTest(() => firstOnly.close());
    const rotation = JSON.parse((await svcInProcess(['webhooks', 'check', firstOnly.url, '--json'], { env })).stdout);
    expect(rotation.verdicts.find((verdict: { check: string }) => verdict.check === 'accepts_several_v1')).toMatchObject({ passed: false });
  });

  it('calls a receiver that verifies the HMAC but ignores the timestamp a replay hole, not a forgery hole', async () => {
    const noClock = await startServer((request, response) => {
      const verdict = verifySignature(request.headers['service-signature'] as string | undefined, request.raw, {
        secrets: [SECRET],
        toleranceSeconds: Infinity,
      });
      response.writeHead(verdict.ok ? 200 : 400).end();
    });
    stopAfterTest(() => noClock.close());
    const result = await svcInProcess(['webhooks', 'check', noClock.url, '--json'], { env: isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET }) });
    const verdicts = Object.fromEntries(
      JSON.parse(result.stdout).verdicts.map((verdict: { check: string; passed: boolean; detail: string }) => [verdict.check, verdict]),
    );
    expect(verdicts.rejects_bad_signature.passed).toBe(true);
    expect(verdicts.rejects_missing_signature.passed).toBe(true);
    const tolerance = "(forging one still needs the secret; the 300 s tolerance is openapi.yaml's assumption, the specification states none)";
    expect(verdicts.rejects_stale_timestamp).toEqual({
      check: 'rejects_stale_timestamp',
      passed: false,
      detail: expect.stringMatching(
        /^validly signed 600 s ago: answered 200 in \d+ ms; it must be refused, or whoever captured a delivery can send it again later /,
      ),
    });
    expect(verdicts.rejects_stale_timestamp.detail.endsWith(tolerance)).toBe(true);
    expect(verdicts.rejects_future_timestamp.detail).toContain(
      `or a captured delivery dated ahead can be sent again until long after it was made ${tolerance}`,
    );
    expect(result.stdout).not.toContain('anyone can forge events');
  });

  it('skips the refusal checks when the endpoint does not accept a valid event', async () => {
    const down = await startServer((_request, response) => response.writeHead(500).end());
    stopAfterTest(() => down.close());
    const result = await svcInProcess(['webhooks', 'check', down.url], { env: isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET }) });
    expect(result.code).toBe(ExitCode.verificationFailed);
    expect(result.stdout).toMatch(/^FAIL {2}accepts_valid_event +answered 500/m);
    expect(result.stdout.match(/^SKIP/gm)).toHaveLength(8);
  });

  it('fails a receiver that refuses a kind openapi.yaml does not list, unless --strict-schema; --event-type takes any kind', async () => {
    const strict = await listen(['--strict-schema']);
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const graded = await svcInProcess(['webhooks', 'check', `${strict.url}/hooks`, '--json'], { env });
    expect(graded.code).toBe(ExitCode.verificationFailed);
    const failed = JSON.parse(graded.stdout).verdicts.filter((verdict: { passed: boolean }) => !verdict.passed);
    expect(failed).toEqual([
      {
        check: 'accepts_unlisted_kind',
        passed: false,
        detail: expect.stringMatching(/^a report\.archived event, a kind part 6 does not list: answered 400 in \d+ ms; expected a 2xx$/),
      },
    ]);
    const asked = await svcInProcess(['webhooks', 'check', `${strict.url}/hooks`, '--strict-schema', '--json'], { env });
    expect(asked.code).toBe(0);
    expect(JSON.parse(asked.stdout).verdicts.map((verdict: { check: string }) => verdict.check)).not.toContain('accepts_unlisted_kind');

    const tolerant = await listen();
    const unlisted = await svcInProcess(['webhooks', 'check', `${tolerant.url}/hooks`, '--event-type', 'document.archived'], { env });
    expect(unlisted.code).toBe(0);
    expect(unlisted.stderr).toMatch(/document\.archived is not a kind openapi\.yaml lists: the samples are the least part 6 describes/);
    await tolerant.waitFor((lines) => lines.some((line) => line.type === 'document.archived' && line.result === 'duplicate'));
  });
});
