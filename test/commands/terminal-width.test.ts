/**
 * What a person sees at an 80-column terminal: the real `svc` in a pseudo-terminal against the
 * real sandbox; no line is wider than the terminal, and what the lines hold is still there.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Applicant, Report } from '../../src/api/types.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { runSvc } from '../helpers/svc.js';
import { runInTerminal, widerThan } from '../helpers/terminal.js';

const COLUMNS = 80;
let sandbox: RunningSandbox;
let applicant: Applicant;
let report: Report;

async function parsed<T>(args: string[]): Promise<T> {
  const result = await runSvc([...args, '--json'], { env: sandbox.env });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet']);
  const profile = join(sandbox.env.HOME!, 'profile.json');
  writeFileSync(profile, JSON.stringify({ given_names: 'Erika Johanna Theresia', surname: 'Mustermann-Oberhuber', date_of_birth: '1988-03-02', nationality: 'AT', occupation: 'Senior procurement engineer for heavy industrial equipment' }));
  applicant = await parsed<Applicant>(['applicants', 'create', '--file', profile, '--monthly-income', '5200', '--currency', 'EUR']);
  report = await parsed<Report>(['reports', 'create', '--applicant', applicant.id, '--destination', 'DE', '--visa-type', 'business', '--purpose', 'Trade fair in Hanover, then two weeks of meetings with suppliers in Stuttgart, Munich and Nuremberg', '--wait']);
});
afterAll(() => sandbox.stop());

describe(`at a ${COLUMNS}-column terminal`, () => {
  it('reports get wraps the criteria inside their columns and shows the fields as aligned lines', async () => {
    const shown = await runInTerminal(['reports', 'get', report.id], sandbox.env, COLUMNS);
    expect(shown.code).toBe(0);
    expect(widerThan(shown.lines, COLUMNS)).toEqual([]);
    expect(shown.lines).toContain(`id           ${report.id}`);
    expect(shown.lines.some((line) => /^│ criterion +│ score │ weight │ weighted │ detail +│$/.test(line))).toBe(true);
    // Every criterion's label is in the table, on a line of its own row.
    for (const criterion of report.criteria ?? []) expect(shown.lines.some((line) => line.startsWith(`│ ${criterion.label}`))).toBe(true);
  });

  it('reports list, applicants get and keys list fit too', async () => {
    for (const args of [['reports', 'list'], ['applicants', 'get', applicant.id], ['keys', 'list']]) {
      const shown = await runInTerminal(args, { ...sandbox.env, SVC_ADMIN_KEY: sandbox.keys.admin }, COLUMNS);
      expect(shown.code, args.join(' ')).toBe(0);
      expect(widerThan(shown.lines, COLUMNS), args.join(' ')).toEqual([]);
    }
  });

  it('svc demo, the first command a newcomer runs, fits from its first line to its last', async () => {
    const shown = await runInTerminal(['demo'], sandbox.env, COLUMNS);
    expect(shown.code).toBe(0);
    expect(widerThan(shown.lines, COLUMNS)).toEqual([]);
    expect(shown.lines.some((line) => line.startsWith('✓ webhook   report.completed'))).toBe(true);
    expect(shown.lines).toContain('Recommendations');
  });
});
