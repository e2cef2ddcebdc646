import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Applicant } from '../../src/api/types.js';
import { type InProcessResult, svcInProcess } from './in-process.js';
import type { TestSandbox } from './sandbox.js';

/** What the tests that run commands against the sandbox share. */

/** The applicant the tests against the sandbox create, as the profile file gives her. */
export const ERIKA = {
  given_names: 'Erika',
  surname: 'Mustermann',
  date_of_birth: '1988-03-02',
  nationality: 'AT',
  passport_number: 'C01X00T47',
  passport_expiry: '2031-08-31',
};

/** Creates ERIKA in `sandbox` as a user would: `svc applicants create --file`, in the test's process. */
export async function createApplicant(sandbox: TestSandbox): Promise<Applicant> {
  const profile = join(sandbox.env.HOME!, 'profile.json');
  writeFileSync(profile, JSON.stringify(ERIKA));
  const created = await svcInProcess(['applicants', 'create', '--file', profile, '--monthly-income', '5200', '--currency', 'EUR', '--json'], {
    env: sandbox.env,
  });
  expect(created.code, created.stderr).toBe(0);
  return JSON.parse(created.stdout) as Applicant;
}

/** The flags of a report the sandbox takes, beside --applicant. */
export const REPORT_FLAGS = ['--destination', 'DE', '--visa-type', 'business', '--purpose', 'Trade fair and meetings with suppliers in Hanover'];

/** What a command that succeeded printed with --json. */
export function parsed<T>(result: InProcessResult): T {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}
