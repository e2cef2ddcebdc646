/**
 * Creating things at a terminal with no flags, as a person would: the real `svc` in a
 * pseudo-terminal against the real sandbox, each question read off the screen and answered with
 * keys. Without a terminal nothing is asked.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { DOCUMENT_TYPES, EMPLOYMENT_STATUSES } from '../../src/spec/enums.js';
import type { Applicant, Report } from '../../src/api/types.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { json, startServer } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { KEYS, startInTerminal } from '../helpers/terminal.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet']);
});
afterAll(() => sandbox.stop());

async function parsed<T>(args: string[]): Promise<T> {
  const result = await runSvc([...args, '--json'], { env: sandbox.env });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

const idOn = (screen: string, prefix: string) => new RegExp(`^id +(${prefix}_\\w+)`, 'm').exec(screen)?.[1];

/** Answers the questions `applicants create` asks for a new applicant's required fields, `fr` for the nationality. */
async function answerRequired(session: ReturnType<typeof startInTerminal>): Promise<void> {
  await session.waitFor('Given names, as in the passport:');
  session.type(`Ana Maria${KEYS.enter}`);
  await session.waitFor('Surname, as in the passport:');
  session.type(`  Silva  ${KEYS.enter}`);
  await session.waitFor('Date of birth (YYYY-MM-DD):');
  session.type(`12/04/1990${KEYS.enter}`);
  await session.waitFor('a date as YYYY-MM-DD, like 1990-04-12');
  session.type(`${KEYS.backspace.repeat(10)}1990-04-12${KEYS.enter}`);
  await session.waitFor('Nationality, two letters (PT, US, …):');
  session.type(`fr${KEYS.enter}`);
}

describe('applicants create with no flags, on a terminal', () => {
  it('asks for each required field, takes fr as FR, refuses a wrong date in plain words, and creates the applicant', async () => {
    const session = startInTerminal(['applicants', 'create'], sandbox.env);
    await answerRequired(session);
    await session.waitFor('Add optional details');
    session.type(`n${KEYS.enter}`);
    const { code, screen } = await session.exited();
    expect(code, screen).toBe(0);
    const id = idOn(screen, 'app');
    expect(id, screen).toBeDefined();
    expect(await parsed<Applicant>(['applicants', 'get', id!])).toMatchObject({
      given_names: 'Ana Maria',
      surname: 'Silva',
      date_of_birth: '1990-04-12',
      nationality: 'FR',
    });
  });

  it('asks for the optional fields when wanted, a trip abroad included', async () => {
    const session = startInTerminal(['applicants', 'create', '--given-names', 'Jo', '--surname', 'Park', '--date-of-birth', '1985-01-30'], sandbox.env);
    await session.waitFor('Nationality, two letters');
    session.type(`kr${KEYS.enter}`);
    await session.waitFor('Add optional details');
    session.type(`y${KEYS.enter}`);
    await session.waitFor('Passport number: (Enter to skip)');
    session.type(`m1234567${KEYS.enter}`);
    for (const question of ['Passport expiry date', 'Occupation']) {
      await session.waitFor(question);
      session.type(KEYS.enter);
    }
    await session.waitFor('Employment status:');
    session.type(KEYS.enter);
    await session.waitFor('Monthly income: (Enter to skip)');
    session.type(`lots${KEYS.enter}`);
    await session.waitFor('an amount, like 2500 or 1250.50');
    session.type(`${KEYS.backspace.repeat(4)}3200${KEYS.enter}`);
    await session.waitFor('Savings:');
    session.type(KEYS.enter);
    await session.waitFor('Currency of income and savings');
    session.type(`krw${KEYS.enter}`);
    await session.waitFor('Earlier visa refusals');
    session.type(KEYS.enter);
    await session.waitFor('Add a trip abroad of the last ten years?');
    session.type(`y${KEYS.enter}`);
    await session.waitFor('Country visited, two letters:');
    session.type(`jp${KEYS.enter}`);
    await session.waitFor('Year of the trip:');
    session.type(`2023${KEYS.enter}`);
    await session.waitFor('Did the stay go beyond what the visa allowed?');
    session.type(`n${KEYS.enter}`);
    await session.waitFor('Add another trip?');
    session.type(`n${KEYS.enter}`);
    const { code, screen } = await session.exited();
    expect(code, screen).toBe(0);
    const applicant = await parsed<Applicant>(['applicants', 'get', idOn(screen, 'app')!]);
    expect(applicant).toMatchObject({
      nationality: 'KR',
      passport_number: 'M1234567',
      monthly_income: 3200,
      currency: 'KRW',
      travel_history: [{ country: 'JP', year: 2023, overstayed: false }],
    });
    expect(applicant.occupation ?? null).toBeNull();
  });
});

describe('applicants create, on a terminal: what the questions say they take', () => {
  it('re-asks a date of birth in the future and a trip before the last ten years, and takes an employment status of its own', async () => {
    // Relative to the real date, far enough from it to hold in every time zone.
    const thisYear = new Date().getUTCFullYear();
    // A service that takes any applicant, to see what was sent.
    const service = await startServer((request, response) => json(response, 201, { id: 'app_4Jd92kQz', ...JSON.parse(request.body) }));
    onTestFinished(() => service.close());
    const env = isolatedEnv({ SVC_BASE_URL: service.url, SVC_API_KEY: 'svc_test_prompts0123456789abcdefghijklm' });
    const session = startInTerminal(['applicants', 'create', '--given-names', 'Jo', '--surname', 'Park', '--nationality', 'KR'], env);
    await session.waitFor('Date of birth (YYYY-MM-DD):');
    session.type(`${thisYear + 2}-01-01${KEYS.enter}`);
    await session.waitFor(`a date of birth in the past: ${thisYear + 2}-01-01 is after today`);
    session.type(`${KEYS.backspace.repeat(10)}1985-01-30${KEYS.enter}`);
    await session.waitFor('Add optional details');
    session.type(`y${KEYS.enter}`);
    for (const question of ['Passport number', 'Passport expiry date', 'Occupation']) {
      await session.waitFor(question);
      session.type(KEYS.enter);
    }
    await session.waitFor('(another value)');
    // Past the sandbox's values: another value, typed in.
    session.type(`${KEYS.down.repeat(EMPLOYMENT_STATUSES.length)}${KEYS.enter}`);
    await session.waitFor('Employment status: (another value)');
    session.type(`  contractor ${KEYS.enter}`);
    for (const question of ['Monthly income', 'Savings', 'Currency of income and savings', 'Earlier visa refusals']) {
      await session.waitFor(question);
      session.type(KEYS.enter);
    }
    await session.waitFor('Add a trip abroad of the last ten years?');
    session.type(`y${KEYS.enter}`);
    await session.waitFor('Country visited, two letters:');
    session.type(`de${KEYS.enter}`);
    await session.waitFor('Year of the trip:');
    session.type(`1999${KEYS.enter}`);
    await session.waitFor(`a year of the last ten, ${thisYear - 9} to ${thisYear}`);
    session.type(`${KEYS.backspace.repeat(4)}${thisYear - 1}${KEYS.enter}`);
    await session.waitFor('Did the stay go beyond what the visa allowed?');
    session.type(`n${KEYS.enter}`);
    await session.waitFor('Add another trip?');
    session.type(`n${KEYS.enter}`);
    const { code, screen } = await session.exited();
    expect(code, screen).toBe(0);
    expect(service.requests).toHaveLength(1);
    expect(JSON.parse(service.requests[0]!.body)).toMatchObject({
      date_of_birth: '1985-01-30',
      employment_status: 'contractor',
      travel_history: [{ country: 'DE', year: thisYear - 1, overstayed: false }],
    });
  });
});

describe('reports create with no flags, on a terminal', () => {
  it('offers the applicants svc created, by name, and creates the report for the one chosen', async () => {
    const applicant = await parsed<Applicant>([
      'applicants',
      'create',
      '--given-names',
      'Lena',
      '--surname',
      'Vogel',
      '--date-of-birth',
      '1992-06-01',
      '--nationality',
      'de',
    ]);
    expect(applicant.nationality).toBe('DE');
    const session = startInTerminal(['reports', 'create'], sandbox.env);
    await session.waitFor('Applicant:');
    // The newest applicant svc created comes first, named.
    await session.waitFor(`Lena Vogel (${applicant.id})`);
    session.type(KEYS.enter);
    await session.waitFor('Destination, two letters');
    session.type(`fra${KEYS.enter}`);
    await session.waitFor('two letters, like FR or US');
    session.type(`${KEYS.backspace}${KEYS.enter}`);
    await session.waitFor('Visa type:');
    session.type(KEYS.enter);
    await session.waitFor('Purpose of travel:');
    // An empty purpose is asked again, not sent.
    session.type(`  ${KEYS.enter}`);
    await session.waitFor('say what the trip is for, in a few words');
    session.type(`A week in Lyon${KEYS.enter}`);
    const { code, screen } = await session.exited();
    expect(code, screen).toBe(0);
    const report = await parsed<Report>(['reports', 'get', idOn(screen, 'rep')!]);
    expect(report).toMatchObject({ applicant_id: applicant.id, destination: 'FR', purpose: 'A week in Lyon' });
  });

  it('keeps the answers when the service refuses them: declining to edit them shows the command that sends them again', async () => {
    const applicant = await parsed<Applicant>([
      'applicants',
      'create',
      '--given-names',
      'Kept',
      '--surname',
      'Answers',
      '--date-of-birth',
      '1990-01-02',
      '--nationality',
      'PT',
    ]);
    const session = startInTerminal(['reports', 'create', '--applicant', applicant.id, '--destination', 'FR'], sandbox.env);
    await session.waitFor('Visa type:');
    // Up from the first choice is the last: another value, typed in.
    session.type(`${KEYS.up}${KEYS.enter}`);
    await session.waitFor('Visa type:');
    session.type(`space_tourism${KEYS.enter}`);
    await session.waitFor('Purpose of travel:');
    session.type(`Lyon's museums${KEYS.enter}`);
    await session.waitFor('Edit and send again?');
    session.type(`n${KEYS.enter}`);
    const { code, screen } = await session.exited();
    expect(code, screen).toBe(ExitCode.invalidInput);
    expect(screen.replace(/\r?\n\s*/g, ' ')).toContain(
      `Your answers, to correct and send again: svc reports create --applicant ${applicant.id} --destination FR --visa-type space_tourism --purpose 'Lyon'\\''s museums'`,
    );
  });

  it('creates a new applicant on the spot, then the report', async () => {
    const session = startInTerminal(['reports', 'create'], sandbox.env);
    await session.waitFor('Applicant:');
    await session.waitFor('Type an applicant id');
    // The list loops: two up from the first is the next-to-last choice.
    session.type(`${KEYS.up}${KEYS.up}`);
    await session.waitFor('❯ Create a new applicant now');
    session.type(KEYS.enter);
    await answerRequired(session);
    await session.waitFor('Add optional details');
    session.type(`n${KEYS.enter}`);
    await session.waitFor(/Created applicant app_\w+\./);
    await session.waitFor('Destination, two letters');
    session.type(`us${KEYS.enter}`);
    await session.waitFor('Visa type:');
    session.type(KEYS.enter);
    await session.waitFor('Purpose of travel:');
    session.type(`Conference${KEYS.enter}`);
    const { code, screen } = await session.exited();
    expect(code, screen).toBe(0);
    const created = /Created applicant (app_\w+)\./.exec(screen)![1]!;
    const report = await parsed<Report>(['reports', 'get', idOn(screen, 'rep')!]);
    expect(report).toMatchObject({ applicant_id: created, destination: 'US' });
    expect(await parsed<Applicant>(['applicants', 'get', created])).toMatchObject({ surname: 'Silva', nationality: 'FR' });
  });
});

describe('documents upload with no file, on a terminal', () => {
  it('asks for the file, refusing one that does not exist, then for its type', async () => {
    const applicant = await parsed<Applicant>([
      'applicants',
      'create',
      '--given-names',
      'Ana',
      '--surname',
      'Silva',
      '--date-of-birth',
      '1990-04-12',
      '--nationality',
      'PT',
    ]);
    const file = join(sandbox.env.HOME!, 'statement.txt');
    writeFileSync(file, 'Monthly statement: balance 12 000 EUR\n');
    const session = startInTerminal(['documents', 'upload', '--applicant', applicant.id], sandbox.env);
    await session.waitFor('File to upload:');
    session.type(`nothere.pdf${KEYS.enter}`);
    await session.waitFor('a file that exists and can be read, like ./passport.pdf');
    // Typed as a person types a path in their home: ~ is expanded as the shell would.
    session.type(`${KEYS.backspace.repeat('nothere.pdf'.length)}~/statement.txt${KEYS.enter}`);
    await session.waitFor('Kind of document:');
    session.type(KEYS.down.repeat(DOCUMENT_TYPES.indexOf('bank_statement')));
    await session.waitFor('❯ bank_statement');
    session.type(KEYS.enter);
    const { code, screen } = await session.exited();
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/^type +bank_statement$/m);
    expect(screen).toMatch(/^file +statement\.txt, \d+ bytes$/m);
  });
});

describe('documents upload without --applicant, on a terminal', () => {
  it('offers the applicant picker of reports create, and attaches the document to the one chosen', async () => {
    const applicant = await parsed<Applicant>([
      'applicants',
      'create',
      '--given-names',
      'Picked',
      '--surname',
      'Forupload',
      '--date-of-birth',
      '1991-02-03',
      '--nationality',
      'PT',
    ]);
    const file = join(sandbox.env.HOME!, 'picked.txt');
    writeFileSync(file, 'Monthly statement: balance 9 000 EUR\n');
    const session = startInTerminal(['documents', 'upload', file, '--type', 'bank_statement'], sandbox.env);
    await session.waitFor('Applicant:');
    // The newest applicant svc created comes first, named.
    await session.waitFor(`Picked Forupload (${applicant.id})`);
    session.type(KEYS.enter);
    const { code, screen } = await session.exited();
    expect(code, screen).toBe(0);
    const document = await parsed<{ applicant_id?: string }>(['documents', 'get', idOn(screen, 'doc')!]);
    expect(document.applicant_id).toBe(applicant.id);
  });
});

describe('without a terminal', () => {
  it('names the missing file of documents upload, and asks nothing', async () => {
    const result = await runSvc(['documents', 'upload', '--type', 'passport'], { env: sandbox.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Error: name the file to upload');
    expect(result.stderr).toContain('svc documents upload <file> --type <type>');
  });

  it('takes --destination fr as FR', async () => {
    const applicant = await parsed<Applicant>([
      'applicants',
      'create',
      '--given-names',
      'Ana',
      '--surname',
      'Silva',
      '--date-of-birth',
      '1990-04-12',
      '--nationality',
      ' pt ',
    ]);
    expect(applicant.nationality).toBe('PT');
    const report = await parsed<Report>([
      'reports',
      'create',
      '--applicant',
      applicant.id,
      '--destination',
      'fr',
      '--visa-type',
      'tourist',
      '--purpose',
      'Holiday',
    ]);
    expect(report.destination).toBe('FR');
  });

  it("gets the sandbox's refusals in plain words, never a regular expression", async () => {
    const result = await runSvc(
      ['applicants', 'create', '--given-names', 'Ana', '--surname', 'Silva', '--date-of-birth', '1990-04-12', '--nationality', 'FRA', '--currency', 'EURO'],
      { env: sandbox.env },
    );
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('nationality: must be two uppercase letters, like FR or US');
    expect(result.stderr).toContain('currency: must be three uppercase letters, like EUR or USD');
    expect(result.stderr).not.toMatch(/\^\[|\]\{/);
  });
});

describe('Ctrl-C at a prompt', () => {
  it.each<[string, () => Promise<string[]>, string]>([
    ['applicants create', async () => ['applicants', 'create'], 'Given names, as in the passport:'],
    ['reports create', async () => ['reports', 'create'], 'Applicant:'],
    ['documents upload', async () => ['documents', 'upload'], 'File to upload:'],
    [
      'reports delete',
      async () => {
        const applicant = await parsed<Applicant>([
          'applicants',
          'create',
          '--given-names',
          'Ana',
          '--surname',
          'Silva',
          '--date-of-birth',
          '1990-04-12',
          '--nationality',
          'PT',
        ]);
        const report = await parsed<Report>([
          'reports',
          'create',
          '--applicant',
          applicant.id,
          '--destination',
          'DE',
          '--visa-type',
          'tourist',
          '--purpose',
          'Holiday',
        ]);
        return ['reports', 'delete', report.id];
      },
      'Delete report',
    ],
    [
      'keys revoke',
      async () => [
        'keys',
        'revoke',
        (await parsed<{ data: Array<{ id: string; read_only: boolean }> }>(['keys', 'list'])).data.find((key) => key.read_only)!.id,
      ],
      'Revoke key_',
    ],
  ])('%s: one line, nothing done, exit 130', async (_name, args, prompt) => {
    const command = await args();
    const session = startInTerminal(command, sandbox.env);
    await session.waitFor(prompt);
    session.type('\u0003');
    const { code, screen } = await session.exited();
    expect(code, screen).toBe(130);
    expect(screen).toContain('Error: stopped at a prompt (Ctrl-C)');
    expect(screen).not.toMatch(/ExitPromptError|force closed|^\s+at .+:\d+:\d+/m);
    // What the command would have removed is still there.
    if (command[1] === 'delete') expect((await runSvc(['reports', 'get', command[2]!, '--json'], { env: sandbox.env })).code).toBe(0);
    if (command[1] === 'revoke') expect((await parsed<{ data: Array<{ id: string }> }>(['keys', 'list'])).data.map((key) => key.id)).toContain(command[2]);
  });
});
