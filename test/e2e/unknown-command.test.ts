/**
 * Words that are no svc command: the closest commands are named in a script as at a terminal, and
 * at a terminal svc offers to run the closest one, running it only when the person says yes.
 */
import { describe, expect, it } from 'vitest';
import { closestCommands } from '../../src/cli/not-found.js';
import { ExitCode } from '../../src/core/errors.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { KEYS, startInTerminal } from '../helpers/terminal.js';

const NAMES = ['reports', 'reports list', 'reports get', 'keys', 'keys rotate', 'keys revoke', 'config', 'config set', 'webhooks listen'];

describe('closestCommands', () => {
  it.each([
    [['report', 'list'], ['reports list']],
    [['reports', 'lst'], ['reports list']],
    [['repots'], ['reports']],
    [['keys', 'rotat', 'key_x'], ['keys rotate']],
    [['keys', 'revok'], ['keys revoke']],
    [['cofig', 'set'], ['config set']],
    [['reports', 'gt'], ['reports get']],
    [['keys', 're'], ['keys']],
    [['zzzzzz'], []],
    [['keys', 'zzzzzzzzz'], ['keys']],
  ])('%j → %j', (typed, expected) => {
    expect(closestCommands(typed, NAMES)).toEqual(expected);
  });
});

describe('an unknown command', () => {
  it('names the closest commands without a terminal, and runs none (exit 2)', async () => {
    const env = isolatedEnv();
    const shown = await runSvc(['report', 'list'], { env });
    expect(shown.code).toBe(ExitCode.usage);
    expect(shown.stderr).toBe('Error: "report list" is not a svc command\n  → did you mean `svc reports list`? `svc help` lists every command\n');
    const json = await runSvc(['report', 'list', '--json'], { env });
    expect(JSON.parse(json.stdout).error).toMatchObject({
      code: 'unknown_command',
      hint: 'did you mean `svc reports list`? `svc help` lists every command',
      exit_code: ExitCode.usage,
    });
  });

  it('at a terminal, runs the closest command when the person says yes, and only then', async () => {
    const env = isolatedEnv();
    const declined = startInTerminal(['report', 'list'], env);
    await declined.waitFor('"report list" is not a svc command. Did you mean `svc reports list`?');
    declined.type(`n${KEYS.enter}`);
    const no = await declined.exited();
    expect(no.code).toBe(ExitCode.usage);
    expect(no.screen).not.toContain('no base URL is configured');

    const accepted = startInTerminal(['report', 'list', '--limit', '1'], env);
    await accepted.waitFor('Did you mean `svc reports list`?');
    accepted.type(`y${KEYS.enter}`);
    const yes = await accepted.exited();
    // reports list ran, with the flag given: with nothing configured, it says so.
    expect(yes.code).toBe(ExitCode.config);
    expect(yes.screen).toContain('no base URL is configured');
  });
});
