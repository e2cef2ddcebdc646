import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { assertProfileName, updateConfig } from '../../config/config-file.js';
import { ConfigError } from '../../core/errors.js';

/** What `--json` prints. */
export type JsonResult = { current_profile: string };

export default class ConfigUse extends BaseCommand<JsonResult> {
  static override summary = 'Make a profile the current one';
  static override examples = ['<%= config.bin %> config use sandbox'];

  static override args = {
    profile: Args.string({ description: 'Profile to use from now on', required: true }),
  };

  public async run(): Promise<JsonResult> {
    const { args } = await this.parse(ConfigUse);
    assertProfileName(args.profile);
    await updateConfig(this.paths.configFile, (config) => {
      if (!config.profiles[args.profile]) {
        throw new ConfigError('unknown_profile', `there is no profile named "${args.profile}"`, 'list profiles with `svc config list`');
      }
      config.current_profile = args.profile;
      return { changed: true, result: undefined };
    });
    this.log(`Now using profile "${args.profile}"`);
    return { current_profile: args.profile };
  }
}
