import { describe, expect, it } from 'vitest';
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
});
