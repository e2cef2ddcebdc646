import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { APPLICANT, REQUIRED, useApplicantsApi } from './fixtures.js';

const api = useApplicantsApi();
const { svc, profileFile, sentBody } = api;

describe('svc applicants create', () => {
  it('sends the flags as an ApplicantInput body and prints the applicant as answered with --json', async () => {
    const result = await svc([
      'applicants',
      'create',
      ...REQUIRED,
      '--passport-number',
      'X1234567',
      '--passport-expiry',
      '2031-05-01',
      '--occupation',
      'Engineer',
      '--employment-status',
      'employed',
      '--monthly-income',
      '3200.50',
      '--savings',
      '15000',
      '--currency',
      'EUR',
      '--previous-refusals',
      '1',
      '--travel',
      'DE:2023',
      '--travel',
      'US:2019:overstayed',
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(APPLICANT);
    expect(sentBody()).toEqual({
      given_names: 'Ana Maria',
      surname: 'Silva',
      date_of_birth: '1990-04-12',
      nationality: 'PT',
      passport_number: 'X1234567',
      passport_expiry: '2031-05-01',
      occupation: 'Engineer',
      employment_status: 'employed',
      monthly_income: 3200.5,
      savings: 15000,
      currency: 'EUR',
      previous_refusals: 1,
      travel_history: [
        { country: 'DE', year: 2023, overstayed: false },
        { country: 'US', year: 2019, overstayed: true },
      ],
    });
  });

  it('merges a --file profile with the flags, the flags winning', async () => {
    const file = profileFile({
      given_names: 'Ana',
      surname: 'Silva',
      date_of_birth: '1990-04-12',
      nationality: 'PT',
      occupation: 'Nurse',
      savings: 900,
      travel_history: [{ country: 'ES', year: 2020, overstayed: false }],
    });
    const result = await svc(['applicants', 'create', '--file', file, '--given-names', 'Ana Maria', '--occupation', 'Engineer', '--travel', 'FR:2022']);
    expect(result.code).toBe(0);
    expect(sentBody()).toEqual({
      given_names: 'Ana Maria',
      surname: 'Silva',
      date_of_birth: '1990-04-12',
      nationality: 'PT',
      occupation: 'Engineer',
      savings: 900,
      travel_history: [{ country: 'FR', year: 2022, overstayed: false }],
    });
  });

  it('shows the applicant to people as a table of fields', async () => {
    const result = await svc(['applicants', 'create', ...REQUIRED]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('id\tapp_4Jd92kQz');
    expect(result.stdout).toContain('monthly income\t3200 EUR');
    expect(result.stdout).toContain('US\t2019\tyes');
  });

  /** The body svc sends for the required flags with `flag` added, or in place of the same flag. */
  async function bodySentWith(flag: string[]): Promise<unknown> {
    const args = REQUIRED.includes(flag[0]!) ? REQUIRED.map((item, index) => (REQUIRED[index - 1] === flag[0] ? flag[1]! : item)) : [...REQUIRED, ...flag];
    const result = await svc(['applicants', 'create', ...args]);
    expect(result.code, result.stderr).toBe(0);
    return sentBody();
  }

  it.each([
    [['--nationality', 'por'], { nationality: 'por' }],
    [['--date-of-birth', '1990-02-30'], { date_of_birth: '1990-02-30' }],
    [['--monthly-income', 'lots'], { monthly_income: 'lots' }],
    [['--previous-refusals', '1.5'], { previous_refusals: 1.5 }],
    [['--passport-number', 'x-1'], { passport_number: 'x-1' }],
    [['--employment-status', 'on_sabbatical'], { employment_status: 'on_sabbatical' }],
    [['--travel', 'deu:1850'], { travel_history: [{ country: 'deu', year: 1850, overstayed: false }] }],
  ])("sends %j as given: the applicant fields and their rules are the service's, not stated", async (flag, field) => {
    expect(await bodySentWith(flag)).toMatchObject(field);
  });

  it.each([
    [['--nationality', ' pt '], { nationality: 'PT' }],
    [['--currency', 'eur'], { currency: 'EUR' }],
    [['--surname', '  Silva '], { surname: 'Silva' }],
    [['--travel', 'de:2023'], { travel_history: [{ country: 'DE', year: 2023, overstayed: false }] }],
  ])('takes %j as meant: a code in small letters is the code, spaces around a value are not part of it', async (flag, field) => {
    expect(await bodySentWith(flag)).toMatchObject(field);
  });

  it('refuses a --travel that is not COUNTRY:YEAR, the syntax of the flag itself (exit 6)', async () => {
    const result = await svc(['applicants', 'create', ...REQUIRED, '--travel', 'DE:2023:overstayd']);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(result.stderr).toContain('--travel DE:2023:overstayd: expected COUNTRY:YEAR or COUNTRY:YEAR:overstayed');
    expect(api.server.requests).toHaveLength(0);
  });

  it('refuses a --date-of-birth after today, naming the flag (exit 2), and sends nothing', async () => {
    // Two years ahead of the real date: after today in every time zone, whenever the test runs.
    const future = `${new Date().getUTCFullYear() + 2}-01-01`;
    for (const command of [
      ['applicants', 'create', ...REQUIRED.slice(0, 4), '--nationality', 'PT'],
      ['applicants', 'update', 'app_4Jd92kQz'],
    ]) {
      const result = await svc([...command, '--date-of-birth', future]);
      expect(result.code, result.stderr).toBe(ExitCode.usage);
      expect(result.stderr).toContain(`--date-of-birth ${future} is after today`);
      expect(result.stderr).toContain('nothing was sent');
    }
    expect(api.server.requests).toHaveLength(0);
  });

  it('warns that the sandbox will not count a --travel trip before the last ten years, and sends it as given; an overstay counts whenever it was', async () => {
    const result = await svc(['applicants', 'create', ...REQUIRED, '--travel', 'DE:1999', '--travel', 'US:1999:overstayed']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/Warning: --travel DE:1999: 1999 is not one of the last ten years \(\d{4} to \d{4}\), so the sandbox does not count/);
    expect(result.stderr).not.toContain('US:1999');
    expect(sentBody()).toMatchObject({
      travel_history: [
        { country: 'DE', year: 1999, overstayed: false },
        { country: 'US', year: 1999, overstayed: true },
      ],
    });
  });

  it("sends a profile without the sandbox's required fields, and shows the service's refusal", async () => {
    api.refuseNextCreation();
    const result = await svc(['applicants', 'create', '--given-names', 'Ana', '--json']);
    expect(sentBody()).toEqual({ given_names: 'Ana' });
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(JSON.parse(result.stdout).error).toMatchObject({
      code: 'invalid_request',
      message: '422 invalid_request: surname is required (field surname)',
      exit_code: ExitCode.invalidInput,
    });
  });

  it("sends the file's fields that openapi.yaml's ApplicantInput does not have", async () => {
    const own = { first_name: 'Ana', family_name: 'Silva', passport: { number: 'X1234567', expires: '2031-05-01' } };
    const result = await svc(['applicants', 'create', '--file', profileFile(own)]);
    expect(result.code, result.stderr).toBe(0);
    expect(sentBody()).toEqual(own);
  });

  it('refuses a file with an id: that is an update', async () => {
    const result = await svc(['applicants', 'create', ...REQUIRED, '--file', profileFile({ id: 'app_4Jd92kQz' })]);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(result.stderr).toContain('svc applicants update');
    expect(api.server.requests).toHaveLength(0);
  });

  it.each([
    ['{"given_names": "Ana",', 'is not valid JSON'],
    ['["Ana"]', 'does not hold a JSON object'],
  ])('refuses a profile file %j that is not a JSON object', async (content, message) => {
    const result = await svc(['applicants', 'create', '--file', profileFile(content)]);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(result.stderr).toContain(message);
    expect(api.server.requests).toHaveLength(0);
  });

  it('refuses a profile file that does not exist', async () => {
    const result = await svc(['applicants', 'create', '--file', join(api.env.HOME!, 'nope.json')]);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(result.stderr).toContain('ENOENT');
  });
});
