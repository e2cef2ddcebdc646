import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Applicant, Key, KeyWithSecret, Report } from '../../src/api/types.js';
import { type InProcessSandbox, startSandboxInProcess } from '../helpers/sandbox.js';

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandboxInProcess();
});
afterAll(async () => {
  await sandbox.stop();
});

const PROFILE = {
  given_names: 'Anna Maria',
  surname: 'Eriksson',
  date_of_birth: '1984-08-12',
  nationality: 'SE',
  monthly_income: 4200,
  savings: 18000,
  currency: 'EUR',
};

async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

async function createApplicant(key = sandbox.keys.test): Promise<Applicant> {
  return json(
    await sandbox.fetch('/v1/applicants', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify(PROFILE) }),
    201,
  );
}

async function createReport(applicantId: string, key = sandbox.keys.test, purpose = 'Two weeks of holiday in Berlin and Munich'): Promise<Report> {
  const body = { applicant_id: applicantId, destination: 'DE', visa_type: 'tourist', purpose };
  return json(await sandbox.fetch('/v1/reports', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), 201);
}

/** Reads the report until its analysis is over (the test's timeout bounds the wait). */
async function finished(id: string, key = sandbox.keys.test): Promise<Report> {
  for (;;) {
    const report = await json<Report>(await sandbox.fetch(`/v1/reports/${id}`, { key }), 200);
    if (report.status === 'completed' || report.status === 'failed') return report;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('part 5.2: HTTPS only', () => {
  it('answers plain HTTP on its port with 400 https_required, and X-RateLimit-Remaining', async () => {
    const answer = await new Promise<{ status: number; body: string; remaining: string | undefined }>((resolve, reject) => {
      const request = httpRequest(
        { host: '127.0.0.1', port: sandbox.port, path: '/v1/reports', headers: { authorization: `Bearer ${sandbox.keys.test}` } },
        (response) => {
          let body = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, body, remaining: response.headers['x-ratelimit-remaining'] as string | undefined }));
        },
      );
      request.on('error', reject);
      request.end();
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.code).toBe('https_required');
    expect(answer.remaining).toMatch(/^\d+$/);
  });
});

describe('part 7: authentication errors', () => {
  it.each([
    ['no Authorization header', 401, 'unauthorized', { key: null }],
    ['a Basic header', 401, 'unauthorized', { key: null, headers: { authorization: 'Basic dXNlcjpwYXNz' } }],
    ['"Bearer" with no key', 401, 'unauthorized', { key: null, headers: { authorization: 'Bearer ' } }],
    ['an unknown key', 401, 'invalid_key', { key: 'svc_test_doesnotexist0000000000000000' }],
  ] as const)('%s → %i %s, with X-RateLimit-Remaining', async (_case, status, code, init) => {
    const response = await sandbox.fetch('/v1/reports', init);
    const body = await json<{ error: { code: string } }>(response, status);
    expect(body.error.code).toBe(code);
    expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  });

  it('a key locked to another address → 403 ip_not_allowed', async () => {
    const response = await sandbox.fetch('/v1/reports', { key: sandbox.keys.ip_locked });
    expect((await json<{ error: { code: string } }>(response, 403)).error.code).toBe('ip_not_allowed');
    expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  });

  it('a revoked key → 401 invalid_key from the next request on', async () => {
    const created = await json<KeyWithSecret>(
      await sandbox.fetch('/v1/keys', {
        method: 'POST',
        key: sandbox.keys.admin,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'short-lived' }),
      }),
      201,
    );
    expect(created.secret).toMatch(/^svc_test_/);
    await json(await sandbox.fetch('/v1/reports', { key: created.secret }), 200);
    const revocation = await json<{ revoked: boolean }>(await sandbox.fetch(`/v1/keys/${created.id}`, { method: 'DELETE', key: sandbox.keys.admin }), 200);
    expect(revocation.revoked).toBe(true);
    const after = await json<{ error: { code: string } }>(await sandbox.fetch('/v1/reports', { key: created.secret }), 401);
    expect(after.error.code).toBe('invalid_key');
  });
});

describe('part 4 rule 3 and part 5: scopes', () => {
  it('a read-only key reads and cannot write', async () => {
    await json(await sandbox.fetch('/v1/reports', { key: sandbox.keys.read_only }), 200);
    const write = await sandbox.fetch('/v1/applicants', {
      method: 'POST',
      key: sandbox.keys.read_only,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(PROFILE),
    });
    expect((await json<{ error: { code: string } }>(write, 403)).error.code).toBe('forbidden');
  });

  it('key management needs the admin key', async () => {
    const keys = await sandbox.fetch('/v1/keys', { key: sandbox.keys.test });
    expect((await json<{ error: { code: string } }>(keys, 403)).error.code).toBe('forbidden');
    const list = await json<{ data: Key[] }>(await sandbox.fetch('/v1/keys', { key: sandbox.keys.admin }), 200);
    expect(list.data.map((key) => key.environment)).toContain('admin');
  });

  it('records when and from where each key was last used', async () => {
    const sent = Date.now();
    await sandbox.fetch('/v1/reports', { key: sandbox.keys.read_only });
    const answered = Date.now();
    const list = await json<{ data: Key[] }>(await sandbox.fetch('/v1/keys?limit=100', { key: sandbox.keys.admin }), 200);
    const readOnly = list.data.find((key) => key.read_only);
    expect(readOnly?.last_used_ip).toBe('127.0.0.1');
    const lastUsed = Date.parse(readOnly!.last_used_at!);
    expect(lastUsed).toBeGreaterThanOrEqual(sent);
    expect(lastUsed).toBeLessThanOrEqual(answered);
  });
});

describe('reports', () => {
  it('are created queued, then completed with an explainable breakdown', async () => {
    const applicant = await createApplicant();
    const report = await createReport(applicant.id);
    expect(report).toMatchObject({ status: 'queued', risk_score: null, applicant_id: applicant.id, destination: 'DE' });
    expect(report.id).toMatch(/^rep_[A-Za-z0-9]+$/);
    const done = await finished(report.id);
    expect(done.status).toBe('completed');
    expect(Number.isInteger(done.risk_score)).toBe(true);
    expect(done.criteria!.reduce((sum, criterion) => sum + criterion.weight, 0)).toBeCloseTo(1, 10);
    expect(done.recommendations!.length).toBeGreaterThan(0);
    expect(done.completed_at).toMatch(/Z$/);
  });

  it('give the same result for the same inputs (test keys are deterministic)', async () => {
    const applicant = await createApplicant();
    const [first, second] = await Promise.all([createReport(applicant.id), createReport(applicant.id)]);
    const [a, b] = await Promise.all([finished(first.id), finished(second.id)]);
    const essence = ({ risk_score, score_band, criteria, recommendations }: Report) => ({ risk_score, score_band, criteria, recommendations });
    expect(essence(a)).toEqual(essence(b));
    expect(a.id).not.toBe(b.id);
  });

  it('are deleted permanently: gone by id, from the list, and a second delete is 404', async () => {
    const applicant = await createApplicant();
    const report = await createReport(applicant.id);
    expect(await json(await sandbox.fetch(`/v1/reports/${report.id}`, { method: 'DELETE' }), 200)).toEqual({ id: report.id, object: 'report', deleted: true });
    await json(await sandbox.fetch(`/v1/reports/${report.id}`), 404);
    const list = await json<{ data: Report[] }>(await sandbox.fetch(`/v1/reports?applicant_id=${applicant.id}`), 200);
    expect(list.data.map((item) => item.id)).not.toContain(report.id);
    await json(await sandbox.fetch(`/v1/reports/${report.id}`, { method: 'DELETE' }), 404);
  });

  it('of another workspace are 404 and absent from its lists', async () => {
    const applicant = await createApplicant();
    const report = await createReport(applicant.id);
    await json(await sandbox.fetch(`/v1/reports/${report.id}`, { key: sandbox.keys.other_workspace }), 404);
    await json(await sandbox.fetch(`/v1/reports/${report.id}`, { method: 'DELETE', key: sandbox.keys.other_workspace }), 404);
    const list = await json<{ data: Report[] }>(await sandbox.fetch('/v1/reports?limit=100', { key: sandbox.keys.other_workspace }), 200);
    expect(list.data.map((item) => item.id)).not.toContain(report.id);
    const reportOnOther = await sandbox.fetch('/v1/reports', {
      method: 'POST',
      key: sandbox.keys.other_workspace,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ applicant_id: applicant.id, destination: 'DE', visa_type: 'tourist', purpose: 'holiday' }),
    });
    expect((await json<{ error: { param: string } }>(reportOnOther, 422)).error.param).toBe('applicant_id');
  });

  it('pages newest first with starting_after', async () => {
    const applicant = await createApplicant();
    const created = [];
    for (let index = 0; index < 3; index++) created.push((await createReport(applicant.id)).id);
    const first = await json<{ data: Report[]; has_more: boolean }>(await sandbox.fetch(`/v1/reports?applicant_id=${applicant.id}&limit=2`), 200);
    expect(first.data.map((report) => report.id)).toEqual([created[2], created[1]]);
    expect(first.has_more).toBe(true);
    const second = await json<{ data: Report[]; has_more: boolean }>(
      await sandbox.fetch(`/v1/reports?applicant_id=${applicant.id}&limit=2&starting_after=${created[1]}`),
      200,
    );
    expect(second).toMatchObject({ has_more: false });
    expect(second.data.map((report) => report.id)).toEqual([created[0]]);
  });

  it.each([
    [{ destination: 'de' }, 'destination'],
    [{ visa_type: 'Tourist' }, 'visa_type'],
    [{ purpose: '' }, 'purpose'],
    [{ extra: 1 }, 'extra'],
  ])('refuses %j with 422 naming the field', async (change, field) => {
    const applicant = await createApplicant();
    const body = { applicant_id: applicant.id, destination: 'DE', visa_type: 'tourist', purpose: 'holiday', ...change };
    const response = await sandbox.fetch('/v1/reports', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const error = await json<{ error: { code: string; param: string } }>(response, 422);
    expect(error.error).toMatchObject({ code: 'invalid_request', param: field });
  });

  it('answers a body that is not JSON with 400 invalid_json', async () => {
    const response = await sandbox.fetch('/v1/reports', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"applicant_id":' });
    expect((await json<{ error: { code: string } }>(response, 400)).error.code).toBe('invalid_json');
  });

  it('counts X-RateLimit-Remaining down on every answer', async () => {
    const first = Number((await sandbox.fetch('/v1/reports')).headers.get('x-ratelimit-remaining'));
    const second = Number((await sandbox.fetch('/v1/reports/rep_doesnotexist')).headers.get('x-ratelimit-remaining'));
    expect(second).toBe(first - 1);
  });
});
