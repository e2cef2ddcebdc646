/**
 * What ops scripts depend on: every command's arguments and flags (command-snapshot.json) and the
 * JSON Schema of what each prints with --json (schemas/). A change to either fails here until it
 * is reviewed and recorded with `npm run snapshot`; and the schemas describe what the real binary
 * prints.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandboxProcess } from './helpers/sandbox.js';
import { runSvc } from './helpers/svc.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = (script: string) => () => execFileSync(process.execPath, [script, '--check'], { cwd: root, stdio: 'pipe' });

function validatorOf(command: string, part: 'result' | 'line') {
  const schema = (JSON.parse(readFileSync(`${root}/schemas/${command}.json`, 'utf8')) as Record<string, object>)[part];
  return new Ajv({ strict: false, allErrors: true }).compile(schema!);
}

function expectValid(command: string, part: 'result' | 'line', output: unknown): void {
  const validate = validatorOf(command, part);
  expect(validate(output), JSON.stringify(validate.errors)).toBe(true);
}

describe('what scripts call', () => {
  it("every command's arguments and flags are those of command-snapshot.json", () => {
    expect(check('scripts/command-snapshot.js'), 'review the change, then `npm run snapshot`').not.toThrow();
  });

  it('every command has a schema of its --json output in schemas/, generated from its types', () => {
    expect(check('scripts/command-schemas.js'), 'review the change, then `npm run snapshot`').not.toThrow();
  });
});

describe('the schemas describe what svc prints', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--quiet']);
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it('applicants create, reports create --wait, reports get, reports list', async () => {
    const json = async (args: string[]) => JSON.parse((await runSvc([...args, '--json'], { env: sandbox.env })).stdout) as Record<string, unknown>;
    const applicant = await json([
      'applicants',
      'create',
      '--given-names',
      'Ana',
      '--surname',
      'Silva',
      '--date-of-birth',
      '1990-01-02',
      '--nationality',
      'PT',
    ]);
    expectValid('applicants-create', 'result', applicant);
    const report = await json([
      'reports',
      'create',
      '--applicant',
      String(applicant.id),
      '--destination',
      'US',
      '--visa-type',
      'tourist',
      '--purpose',
      'Holiday',
      '--wait',
    ]);
    expectValid('reports-create', 'result', report);
    expectValid('reports-get', 'result', await json(['reports', 'get', String(report.id)]));
    expectValid('reports-list', 'result', await json(['reports', 'list']));
  });

  it('config list and sandbox keys', async () => {
    expectValid('config-list', 'result', JSON.parse((await runSvc(['config', 'list', '--json'], { env: sandbox.env })).stdout));
    expectValid(
      'sandbox-keys',
      'result',
      JSON.parse((await runSvc(['sandbox', 'keys', '--json', '--data-dir', sandbox.dataDir], { env: sandbox.env })).stdout),
    );
  });

  it('a schema refuses what a command does not print', () => {
    expect(validatorOf('config-set', 'result')({ profile: 'default', name: 'base_url' })).toBe(false);
  });
});
