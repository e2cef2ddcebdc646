import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Applicant } from '../../../src/api/types.js';
import { ExitCode } from '../../../src/core/errors.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { createApplicant, parsed } from '../../helpers/sandbox-cli.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { APPLICANT, useApplicantsApi } from './fixtures.js';

const api = useApplicantsApi();
const { svc, profileFile, sentBody } = api;

describe('svc applicants update', () => {
  it('sends only the fields given, with the id in the body', async () => {
    const result = await svc(['applicants', 'update', 'app_4Jd92kQz', '--passport-number', 'X1234567', '--travel', 'US:2019:overstayed', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(APPLICANT);
    expect(sentBody()).toEqual({ id: 'app_4Jd92kQz', passport_number: 'X1234567', travel_history: [{ country: 'US', year: 2019, overstayed: true }] });
  });

  it('takes the changes from a file, the flags winning, the argument giving the id', async () => {
    const file = profileFile({ id: 'app_other1', occupation: 'Nurse', savings: 100 });
    const result = await svc(['applicants', 'update', 'app_4Jd92kQz', '--file', file, '--savings', '250.75']);
    expect(result.code).toBe(0);
    expect(sentBody()).toEqual({ id: 'app_4Jd92kQz', occupation: 'Nurse', savings: 250.75 });
  });

  it('refuses an update without any field (exit 2)', async () => {
    const result = await svc(['applicants', 'update', 'app_4Jd92kQz']);
    expect(result.code).toBe(ExitCode.usage);
    expect(result.stderr).toContain('no field of applicant app_4Jd92kQz was given');
    expect(api.server.requests).toHaveLength(0);
  });

  it('validates the id', async () => {
    const result = await svc(['applicants', 'update', 'bob', '--occupation', 'Pilot']);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(result.stderr).toContain('id "bob" must be an identifier starting with app_ (spec part 2) (field id)');
    expect(api.server.requests).toHaveLength(0);
  });
});

describe('svc applicants update against the sandbox', () => {
  let sandbox: InProcessSandbox;
  let applicant: Applicant;
  beforeAll(async () => {
    sandbox = await startSandboxInProcess();
    applicant = await createApplicant(sandbox);
  });
  afterAll(() => sandbox.stop());

  it('updates an applicant', async () => {
    const updated = parsed<Applicant>(await svcInProcess(['applicants', 'update', applicant.id, '--savings', '30000', '--json'], { env: sandbox.env }));
    expect(updated).toMatchObject({ id: applicant.id, savings: 30_000, monthly_income: 5_200 });
    expect(parsed<Applicant>(await svcInProcess(['applicants', 'get', applicant.id, '--json'], { env: sandbox.env }))).toEqual(updated);
  });
});
