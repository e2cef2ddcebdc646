import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Applicant, KeyWithSecret } from '../../src/api/types.js';
import { type InProcessSandbox, startSandboxInProcess } from '../helpers/sandbox.js';

const PROFILE = { given_names: 'Ola', surname: 'Nordmann', date_of_birth: '1990-01-01', nationality: 'NO' };

describe('part 8 on the free plan: 10 requests a minute, and the monthly report quota of live keys', () => {
  let sandbox: InProcessSandbox;
  beforeAll(async () => {
    sandbox = await startSandboxInProcess({ plan: 'free', monthlyQuota: 1 });
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

describe('part 8 for requests without a valid key: guessing keys is throttled by source address', () => {
  let sandbox: InProcessSandbox;
  beforeAll(async () => {
    sandbox = await startSandboxInProcess({ plan: 'free' });
  });
  afterAll(() => sandbox.stop());

  async function answer(key: string | null) {
    const response = await sandbox.fetch('/v1/reports?limit=1', { key });
    const body = (await response.json()) as { error?: { code: string; message: string } };
    return {
      status: response.status,
      code: body.error?.code,
      message: body.error?.message,
      remaining: response.headers.get('x-ratelimit-remaining'),
      retryAfter: response.headers.get('retry-after'),
    };
  }

  it('answers the 11th guess of a minute with 429 and Retry-After, a right guess alike, without eating the budget of a key in use', async () => {
    expect(await answer(sandbox.keys.test)).toMatchObject({ status: 200, remaining: '9' });

    const guesses = [];
    for (let guess = 0; guess < 40; guess++) guesses.push(await answer(`svc_test_${randomBytes(16).toString('hex')}`));
    const statuses = guesses.map((guess) => guess.status);
    expect(statuses.slice(0, 10), statuses.join(' ')).toEqual(Array(10).fill(401));
    expect(statuses.slice(10), statuses.join(' ')).toEqual(Array(30).fill(429));
    expect(guesses.slice(0, 10).map((guess) => guess.remaining)).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
    const refused = guesses.at(-1)!;
    expect(refused).toMatchObject({ code: 'rate_limited', remaining: '0' });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);

    // A key guessed right gets the answer a wrong guess gets, and so does a request without a key.
    const rightGuess = await answer(sandbox.keys.read_only);
    expect({ ...rightGuess, retryAfter: undefined }).toEqual({ ...refused, retryAfter: undefined });
    expect(await answer(null)).toMatchObject({ status: 429, code: 'rate_limited' });

    // The key that worked from this address before goes on, its workspace's budget untouched.
    expect(await answer(sandbox.keys.test)).toMatchObject({ status: 200, remaining: '8' });
  });
});
