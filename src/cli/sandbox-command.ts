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
      // What help shows (and the generated docs/commands.md): the rule, not this machine's path. The
      // directory itself comes from the command's environment (sandboxDir), which a flag's default cannot see.
      defaultHelp: async () => '$XDG_DATA_HOME/svc/sandbox',
      helpGroup: 'SANDBOX',
    }),
  };

  /** The sandbox's data directory: --data-dir (or SVC_SANDBOX_DIR), else `sandbox` in svc's data directory. */
  protected sandboxDir(fromFlag: string | undefined): string {
    return fromFlag ?? defaultSandboxDir(this.paths);
  }
}
