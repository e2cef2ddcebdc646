import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { sampleEvent } from '../../../src/webhooks/samples.js';
import { signatureHeader } from '../../../src/webhooks/signature.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

const SECRET = 'whsec_commands0123456789abcdefghijklmnop';

describe('svc webhooks verify', () => {
  it('checks an old capture as of when it arrived with --at', async () => {
    const body = JSON.stringify(sampleEvent('report.created'));
    const header = signatureHeader(SECRET, body, 1_767_225_600);
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const now = await svcInProcess(['webhooks', 'verify', '--header', header, '--json'], { env, input: body });
    expect(JSON.parse(now.stdout)).toMatchObject({ ok: false, reason: 'timestamp_too_old' });
    const then = await svcInProcess(['webhooks', 'verify', '--header', header, '--at', '2026-01-01T00:01:00Z', '--json'], { env, input: body });
    expect(JSON.parse(then.stdout)).toMatchObject({ ok: true });
  });

  it('names a v1 made with another hash (SHA-1) as the contract kit does, not by its length', async () => {
    const body = JSON.stringify(sampleEvent('report.completed'));
    const t = Math.floor(Date.now() / 1000);
    const sha1 = createHmac('sha1', SECRET).update(`${t}.${body}`).digest('hex');
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const result = await svcInProcess(['webhooks', 'verify', '--header', `t=${t},v1=${sha1}`], { env, input: body });
    expect(result.code).toBe(ExitCode.verificationFailed);
    expect(result.stdout).toContain('→ the v1 value is HMAC-SHA-1 with the webhook secret over <t>.<raw body>, in hex, not HMAC-SHA256');
    expect(result.stdout).not.toContain('neither 64 hex digits nor 43 base64 characters');
    expect(result.stdout).toMatch(/invalid: signature_mismatch\n$/);
  });
});
