import { BaseCommand } from '../../cli/base-command.js';
import { settingNameArg } from '../../flags/setting-name.js';
import { displaySetting } from '../../config/settings.js';
import { currentProfileName, readConfig } from '../../config/config-file.js';
import { ConfigError } from '../../core/errors.js';

/** What `--json` prints. */
export type JsonResult = { profile: string; name: string; value: string };

export default class ConfigGet extends BaseCommand<JsonResult> {
  static override summary = 'Print a setting of a profile (keys redacted)';
  static override examples = ['<%= config.bin %> config get base_url', '<%= config.bin %> config get api_key --profile sandbox --json'];

  static override args = {
    name: settingNameArg('Setting to print'),
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(ConfigGet);
    const { name } = args;
    const config = await readConfig(this.paths.configFile);
    const profile = currentProfileName(config, flags.profile, this.io.env);
    const value = config.profiles[profile]?.[name];
    if (value === undefined) {
      throw new ConfigError('setting_not_set', `${name} is not set in profile "${profile}"`, `set it with \`svc config set ${name}\``);
    }
    const shown = displaySetting(name, value);
    this.log(shown);
    return { profile, name, value: shown };
  }
}
