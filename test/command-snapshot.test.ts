/**
 * What ops scripts depend on: every command's arguments and flags (command-snapshot.json) and the
 * JSON Schema of what each prints with --json (schemas/). A change to either fails here until it
 * is reviewed and recorded with `npm run snapshot`; and the schemas describe what the real binary
 * prints.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPRECATED_JSON } from '../src/cli/deprecated-json.js';
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

  it("every field of every command's --json is snake_case, as the API spells its own", () => {
    // A delivery's `headers` are named by HTTP, not by svc.
    const names = (node: unknown): string[] => {
      if (Array.isArray(node)) return node.flatMap(names);
      if (node === null || typeof node !== 'object') return [];
      const properties = 'properties' in node && node.properties !== null && typeof node.properties === 'object' ? node.properties : {};
      const { headers: _, ...named } = properties as Record<string, unknown>;
      const rest = Object.entries(node).filter(([key]) => key !== 'properties');
      return [...Object.keys(named), ...Object.values(named).flatMap(names), ...rest.flatMap(([, value]) => names(value))];
    };
    // 0.1.0's names, printed beside the snake_case ones until their removal (docs/json-output.md).
    const deprecated = (file: string) =>
      new Set(DEPRECATED_JSON.filter((entry) => `${entry.command.replaceAll(' ', '-')}.json` === file).map((entry) => entry.field.split('.').at(-1)));
    const misspelt = readdirSync(join(root, 'schemas'))
      .filter((file) => file.endsWith('.json'))
      .flatMap((file) =>
        names(JSON.parse(readFileSync(join(root, 'schemas', file), 'utf8')))
          .filter((name) => !/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(name) && !deprecated(file).has(name))
          .map((name) => `${file}: ${name}`),
      );
    expect(misspelt).toEqual([]);
  });
});

/** The commands that print one resource read from an answer that held one, and what each always prints. */
const SINGLE_RESOURCES = ['reports-create', 'reports-get', 'reports-wait', 'applicants-get', 'documents-get'] as const;

/** The fields a schema requires, wherever they are in its `allOf`. */
function requiredOf(command: string): string[] {
  const schema = (JSON.parse(readFileSync(`${root}/schemas/${command}.json`, 'utf8')) as { result: { allOf?: Array<{ required?: string[] }> } }).result;
  return (schema.allOf ?? []).flatMap((part) => part.required ?? []);
}

describe('the schemas describe what svc prints', () => {
  let sandbox: RunningSandbox;
  /** What each command printed with --json against the sandbox. */
  const printed: Record<string, Record<string, unknown>> = {};
  const json = async (args: string[]) => JSON.parse((await runSvc([...args, '--json'], { env: sandbox.env })).stdout) as Record<string, unknown>;

  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--quiet']);
    printed['applicants-create'] = await json([
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
    const applicant = String(printed['applicants-create'].id);
    printed['reports-create'] = await json([
      'reports',
      'create',
      '--applicant',
      applicant,
      '--destination',
      'US',
      '--visa-type',
      'tourist',
      '--purpose',
      'Holiday',
    ]);
    const report = String(printed['reports-create'].id);
    printed['reports-wait'] = await json(['reports', 'wait', report]);
    printed['reports-get'] = await json(['reports', 'get', report]);
    printed['reports-list'] = await json(['reports', 'list']);
    printed['applicants-get'] = await json(['applicants', 'get', applicant]);
    const statement = join(sandbox.env.HOME!, 'statement.txt');
    writeFileSync(statement, 'Balance 1200 EUR\n');
    const document = await json(['documents', 'upload', statement, '--type', 'bank_statement', '--applicant', applicant]);
    printed['documents-get'] = await json(['documents', 'get', String(document.id)]);
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it.each(['applicants-create', 'reports-list', ...SINGLE_RESOURCES])('%s --json validates against its schema', (command) => {
    expectValid(command, 'result', printed[command]);
  });

  it.each(SINGLE_RESOURCES)('%s: the schema requires the id, which svc always prints (a string, or a number some services use)', (command) => {
    expect(requiredOf(command)).toEqual(['id']);
    const validate = validatorOf(command, 'result');
    expect(validate({})).toBe(false);
    expect(validate({ id: null, status: 'queued' })).toBe(false);
    expect(validate({ id: 'x_1' })).toBe(true);
    expect(validate({ id: 42 })).toBe(true);
    for (const field of requiredOf(command)) {
      const { [field]: _left, ...without } = printed[command]!;
      expect(validate(without), `${command} without ${field}`).toBe(false);
    }
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
