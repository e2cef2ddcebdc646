import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { settingNameArg } from '../../flags/setting-name.js';
import { displaySetting, isSecretValue, normaliseSetting } from '../../config/settings.js';
import { currentProfileName, SETTINGS, type SettingName, updateConfig } from '../../config/config-file.js';
import { ConfigError } from '../../core/errors.js';
import { secretOnCommandLine } from '../../flags/secret.js';
import { readStdin } from '../../ui/stdin.js';

/** What `--json` prints. */
export type JsonResult = { profile: string; name: string; value: string; file: string };

export default class ConfigSet extends BaseCommand<JsonResult> {
  static override summary = 'Save a setting in a profile';
  static override description = `Settings: ${Object.entries(SETTINGS)
    .map(([name, { description }]) => `${name} (${description})`)
    .join('; ')}.
Keys are best given without VALUE: svc then reads them from stdin, or asks for them on a terminal, so they stay out of the process list and the shell history. The config file is written with mode 0600.`;

  static override examples = [
    '<%= config.bin %> config set base_url https://api.example.com',
    'printf %s "$KEY" | <%= config.bin %> config set api_key',
    '<%= config.bin %> config set ca_cert ./sandbox-ca.pem --profile staging',
  ];

  static override args = {
    name: settingNameArg('Setting to save'),
    // svc reads stdin itself, whole: oclif would take whatever arrived within 10 ms as VALUE.
    value: Args.string({ description: 'Value; omit it for keys, to read them from stdin or a prompt', ignoreStdin: true }),
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(ConfigSet);
    const { name } = args;
    // Read before the config file is locked: a person may take their time at the prompt.
    const { value, source } = await this.readValue(name, args.value);
    this.secrets.push(value);
    const saved = normaliseSetting(name, value, source);
    const { profile } = await updateConfig(this.paths.configFile, (config) => {
      const profile = currentProfileName(config, flags.profile, this.io.env);
      config.profiles[profile] = { ...config.profiles[profile], [name]: saved };
      return { changed: true, result: { profile } };
    });
    const shown = displaySetting(name, saved);
    this.log(`Saved ${name} = ${shown} in profile "${profile}" (${this.paths.configFile})`);
    return { profile, name, value: shown, file: this.paths.configFile };
  }

  private async readValue(name: SettingName, argument: string | undefined): Promise<{ value: string; source: string }> {
    if (argument !== undefined) {
      if (isSecretValue(name, argument)) {
        this.secrets.push(argument);
        this.warning(secretOnCommandLine('a key given as an argument', 'omitting it and piping it on stdin'));
      }
      return { value: argument, source: 'the command line' };
    }
    const interactive = this.io.canPrompt;
    const ask = SETTINGS[name].secret ? this.prompter.secret : this.prompter.input;
    const value = interactive ? await ask(`${name}:`) : await readStdin(this.io);
    if (!value) {
      throw new ConfigError(
        'no_value',
        `no value was given for ${name}`,
        `give it as an argument, or pipe it on stdin: printf %s "$VALUE" | svc config set ${name}`,
      );
    }
    return { value, source: interactive ? 'the prompt' : 'stdin' };
  }
}
