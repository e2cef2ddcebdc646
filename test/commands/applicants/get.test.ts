import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { APPLICANT, useApplicantsApi } from './fixtures.js';

const api = useApplicantsApi();
const { svc } = api;

describe('svc applicants get', () => {
  it('reads GET /v1/applicants/{id} and prints the applicant as answered with --json', async () => {
    const result = await svc(['applicants', 'get', 'app_4Jd92kQz', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(APPLICANT);
    expect(api.server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /v1/applicants/app_4Jd92kQz']);
  });

  it('shows the fields and the travel history to people', async () => {
    const result = await svc(['applicants', 'get', 'app_4Jd92kQz']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('given names\tAna Maria');
    expect(result.stdout).toContain('passport expiry\t2031-05-01');
    expect(result.stdout).toContain('Travel history');
    expect(result.stdout).toContain('DE\t2023\tno');
  });

  it('exits 5 for an unknown applicant', async () => {
    const result = await svc(['applicants', 'get', 'app_missing', '--retries', '0']);
    expect(result.code).toBe(ExitCode.notFound);
  });
});
