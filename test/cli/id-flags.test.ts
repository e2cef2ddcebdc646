/**
 * Every flag that takes an identifier, on every command, found in the manifest by the prefix its
 * description names: a value with another prefix breaks a rule the specification states (part 2),
 * so it is refused before anything is sent (exit 6), naming the prefix expected.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { svcInProcess } from '../helpers/in-process.js';
import { isolatedEnv } from '../helpers/svc.js';

const manifest = JSON.parse(readFileSync('oclif.manifest.json', 'utf8')) as {
  commands: Record<string, { flags: Record<string, { description?: string }> }>;
};

const PREFIXED = /\b(app|rep|doc|key|evt)_…/;

/** Each flag whose description names an identifier prefix: [command id, flag, prefix]. */
const idFlags = Object.entries(manifest.commands).flatMap(([id, command]) =>
  Object.entries(command.flags).flatMap(([name, flag]) => {
    const prefix = PREFIXED.exec(flag.description ?? '')?.[1];
    return prefix ? [[id, `--${name}`, `${prefix}_`] as const] : [];
  }),
);

let server: TestServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startServer((_request, response) => json(response, 404, { error: { code: 'not_found', message: 'no such thing' } }));
  env = isolatedEnv({
    SVC_BASE_URL: server.url,
    SVC_API_KEY: 'svc_test_idflags0123456789abcdefghijklm',
    SVC_ADMIN_KEY: 'svc_admin_idflags0123456789abcdefghijkl',
  });
});
afterAll(() => server.close());

/** What else each command needs on its command line to get as far as the flag. */
function argumentsOf(command: string): string[] {
  if (command === 'documents:upload') {
    const file = join(env.HOME!, 'passport.txt');
    writeFileSync(file, 'P<PRTSILVA<<ANA<MARIA\n');
    return [file, '--type', 'passport'];
  }
  if (command === 'keys:rotate') return ['key_old4Jd92kQz'];
  if (command === 'webhooks:trigger') return ['report.completed', '--to', 'http://127.0.0.1:9/hooks', '--secret', 'whsec_idflags0123456789abcdef'];
  return [];
}

describe('a flag that takes an identifier', () => {
  it('is found on every command that has one', () => {
    expect(idFlags.map(([command, flag]) => `${command} ${flag}`).sort()).toEqual([
      'contract:verify --revocable-key-id',
      'documents:upload --applicant',
      'keys:list --starting-after',
      'keys:rotate --new-key-id',
      'reports:create --applicant',
      'reports:list --applicant',
      'reports:list --starting-after',
      'sandbox:deliveries --event',
      'webhooks:trigger --document',
      'webhooks:trigger --report',
    ]);
  });

  it.for(idFlags)('%s %s with another prefix is refused before sending, naming %s (exit 6)', async ([command, flag, prefix], { expect }) => {
    const wrong = prefix === 'app_' ? 'rep_4Jd92kQz' : 'app_4Jd92kQz';
    const before = server.requests.length;
    const result = await svcInProcess([...command.split(':'), ...argumentsOf(command), flag, wrong], { env });
    expect(result.code, result.stderr).toBe(ExitCode.invalidInput);
    expect(result.stderr).toMatch(new RegExp(`"${wrong}" must be an (identifier|event id) starting with ${prefix}`));
    expect(result.stderr).toContain('nothing was sent');
    expect(server.requests.length).toBe(before);
  });
});
