import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { sampleEvent } from '../../../src/webhooks/samples.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

const SECRET = 'whsec_commands0123456789abcdefghijklmnop';

describe('svc webhooks sign', () => {
  it('signs a file and verifies it back, and exits 16 with a diagnosis when the body changed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-sign-'));
    const file = join(dir, 'event.json');
    const body = JSON.stringify(sampleEvent('report.completed'));
    writeFileSync(file, body);
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const header = (await svcInProcess(['webhooks', 'sign', '--payload-file', file], { env })).stdout.trim();
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const valid = await svcInProcess(['webhooks', 'verify', '--header', header, '--payload-file', file], { env });
    expect(valid.code).toBe(0);
    expect(valid.stdout).toMatch(/^signature +ok +the v1 value matches the secret whsec_…mnop: HMAC-SHA256 over <t>\.<raw body>, in hex$/m);
    expect(valid.stdout.trim().split('\n').at(-1)).toBe('valid');

    writeFileSync(file, `${JSON.stringify(JSON.parse(body), null, 2)}\n`);
    const changed = await svcInProcess(['webhooks', 'verify', '--header', header, '--payload-file', file], { env });
    expect(changed.code).toBe(ExitCode.verificationFailed);
    expect(changed.stdout).toMatch(/re-serialised as compact JSON/);
    expect(changed.stdout.trim().split('\n').at(-1)).toBe('invalid: signature_mismatch');
  });
});
