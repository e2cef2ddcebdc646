/**
 * A command line svc cannot parse, on every command, through the real binary, with every secret
 * svc reads from the environment set: the error is svc's own (exit 2, `{"error": {kind, code,
 * message, hint, exit_code}}` under --json) and shows no secret. oclif's own form of such an
 * error printed its whole configuration, the environment and its keys included.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

const manifest = JSON.parse(readFileSync('oclif.manifest.json', 'utf8')) as {
  commands: Record<string, { args: Record<string, { required?: boolean }> }>;
};

/** Every variable named in src/ that holds a key or a webhook secret, found by its name rather than listed. */
const secretVariables = [
  ...new Set(
    readdirSync('src', { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) => readFileSync(`src/${file}`, 'utf8').match(/\bSVC_[A-Z_]*(?:KEY|SECRET)\b/g) ?? []),
  ),
];

/** The random part of each secret, in the base64 alphabet (`+`, `/`, `=`) that keys may use. */
const randomParts = Object.fromEntries(secretVariables.map((variable) => [variable, randomBytes(30).toString('base64')]));
const prefixOf = (variable: string) => (variable.endsWith('_SECRET') ? 'whsec_' : variable.includes('ADMIN') ? 'svc_admin_' : 'svc_live_');
const secrets = Object.fromEntries(secretVariables.map((variable) => [variable, `${prefixOf(variable)}${randomParts[variable]}`]));

type Case = [string, string[]];
const cases: Case[] = [
  ...Object.entries(manifest.commands).flatMap(([id, command]): Case[] => {
    const words = id.split(':');
    const unknownFlag: Case = [`${words.join(' ')} with an unknown flag`, [...words, '--no-such-flag']];
    const requiresArgument = Object.values(command.args).some((arg) => arg.required);
    return requiresArgument ? [unknownFlag, [`${words.join(' ')} without its argument`, words]] : [unknownFlag];
  }),
  ['an unknown command', ['no-such-command']],
  ['an unknown command of a topic', ['reports', 'no-such-command']],
  ["a plugin's command", ['autocomplete', 'no-such-shell']],
];

describe('a command line svc cannot parse', () => {
  it('finds the secret variables and every command', () => {
    expect(secretVariables).toEqual(expect.arrayContaining(['SVC_API_KEY', 'SVC_ADMIN_KEY', 'SVC_WEBHOOK_SECRET', 'SVC_NEW_API_KEY']));
    expect(Object.keys(manifest.commands).length).toBeGreaterThan(30);
  });

  it.concurrent.for(cases.flatMap(([what, args]) => [[`${what}, --json`, [...args, '--json']] as Case, [what, args] as Case]))(
    '%s: exit 2, svc’s error shape, no secret',
    async ([, args], { expect }) => {
      const result = await runSvc(args, { env: isolatedEnv(secrets), killAfterMs: 20_000 });
      const printed = result.stdout + result.stderr;
      for (const part of Object.values(randomParts)) expect(printed).not.toContain(part);
      expect(result.code, printed.slice(0, 2000)).toBe(ExitCode.usage);
      if (args.includes('--json')) {
        expect(JSON.parse(result.stdout)).toEqual({
          error: { kind: 'usage', code: expect.any(String), message: expect.any(String), hint: expect.any(String), exit_code: ExitCode.usage },
        });
      } else {
        expect(result.stdout).toBe('');
      }
      expect(result.stderr).toMatch(/^Error: .+\n {2}→ .+$/m);
    },
  );
});
