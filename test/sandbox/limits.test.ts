import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Applicant, KeyWithSecret } from '../../src/api/types.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';

const PROFILE = { given_names: 'Ola', surname: 'Nordmann', date_of_birth: '1990-01-01', nationality: 'NO' };

describe('part 8 on the free plan: 10 requests a minute, and the monthly report quota of live keys', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--plan', 'free', '--monthly-quota', '1', '--quiet']);
  });
  afterAll(() => sandbox.stop());

  it('answers the 11th request of a minute with 429 rate_limited, Retry-After and X-RateLimit-Remaining 0; the quota with 429 quota_exceeded', async () => {
    const json = (body: unknown) => ({ method: 'POST', key: sandbox.keys.admin, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const live = (await (await sandbox.fetch('/v1/keys', json({ name: 'live', environment: 'live' }))).json()) as KeyWithSecret;
    const applicant = (await (await sandbox.fetch('/v1/applicants', { ...json(PROFILE), key: live.secret })).json()) as Applicant;
    const report = { applicant_id: applicant.id, destination: 'DE', visa_type: 'tourist', purpose: 'holiday' };
    expect((await sandbox.fetch('/v1/reports', { ...json(report), key: live.secret })).status).toBe(201);
    const overQuota = await sandbox.fetch('/v1/reports', { ...json(report), key: live.secret });
    expect(overQuota.status).toBe(429);
    expect(((await overQuota.json()) as { error: { code: string } }).error.code).toBe('quota_exceeded');
    expect(Number(overQuota.headers.get('retry-after'))).toBeGreaterThan(0);
    // A test key is free: the quota does not apply to it.
    const testApplicant = (await (await sandbox.fetch('/v1/applicants', { ...json(PROFILE), key: sandbox.keys.test })).json()) as Applicant;
    expect((await sandbox.fetch('/v1/reports', { ...json({ ...report, applicant_id: testApplicant.id }), key: sandbox.keys.test })).status).toBe(201);

    const remaining: number[] = [];
    let limited: Response | undefined;
    for (let request = 0; request < 12 && !limited; request++) {
      const response = await sandbox.fetch('/v1/reports');
      remaining.push(Number(response.headers.get('x-ratelimit-remaining')));
      if (response.status === 429) limited = response;
      else await response.body?.cancel();
    }
    expect(limited, `remaining went ${remaining.join(', ')}`).toBeDefined();
    expect(((await limited!.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(remaining.at(-1)).toBe(0);
    expect(remaining.slice(0, -1)).toEqual([...remaining.slice(0, -1)].sort((a, b) => b - a));
  });
});
