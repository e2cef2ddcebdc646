import { BaseCommand } from '../../cli/base-command.js';
import { settingNameArg } from '../../flags/setting-name.js';
import { currentProfileName, updateConfig } from '../../config/config-file.js';

/** What `--json` prints. */
export type JsonResult = { profile: string; name: string; removed: boolean };

export default class ConfigUnset extends BaseCommand<JsonResult> {
  static override summary = 'Remove a setting from a profile';
  static override examples = ['<%= config.bin %> config unset api_key --profile staging'];

  static override args = {
    name: settingNameArg('Setting to remove'),
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(ConfigUnset);
    const { name } = args;
    const { profile, removed } = await updateConfig(this.paths.configFile, (config) => {
      const profile = currentProfileName(config, flags.profile, this.io.env);
      const settings = config.profiles[profile];
      const removed = settings?.[name] !== undefined;
      if (settings && removed) delete settings[name];
      return { changed: removed, result: { profile, removed } };
    });
    this.log(removed ? `Removed ${name} from profile "${profile}"` : `${name} was not set in profile "${profile}"`);
    return { profile, name, removed };
  }
}
