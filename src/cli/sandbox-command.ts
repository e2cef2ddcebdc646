import { Flags } from '@oclif/core';
import { BaseCommand } from './base-command.js';
import { defaultSandboxDir } from '../sandbox/profile.js';

/** A `svc sandbox …` command: works on the sandbox's data directory. */
export abstract class SandboxCommand<Result, Line = never> extends BaseCommand<Result, Line> {
  static override baseFlags = {
    ...BaseCommand.baseFlags,
    'data-dir': Flags.string({
      description: 'Data directory of the sandbox',
      env: 'SVC_SANDBOX_DIR',
      default: async () => defaultSandboxDir(),
      // What help shows (and the generated docs/commands.md): the rule, not this machine's path.
      defaultHelp: async () => '$XDG_DATA_HOME/svc/sandbox',
      helpGroup: 'SANDBOX',
    }),
  };
}
