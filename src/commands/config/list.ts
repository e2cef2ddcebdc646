import { BaseCommand } from '../../cli/base-command.js';
import { displaySetting } from '../../config/settings.js';
import { currentProfileName, type Profile, readConfig, SETTINGS, type SettingName } from '../../config/config-file.js';
import { renderTable } from '../../ui/table.js';

/** What `--json` prints. */
export type JsonResult = { file: string; current_profile: string; profiles: Record<string, Profile> };

export default class ConfigList extends BaseCommand<JsonResult> {
  static override summary = 'List the profiles and their settings (keys redacted)';
  static override examples = ['<%= config.bin %> config list', '<%= config.bin %> config list --json'];

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(ConfigList);
    const config = await readConfig(this.paths.configFile);
    const current = currentProfileName(config, flags.profile, this.io.env);
    // The upload settings only where a profile holds one: most services take the sandbox's shape.
    const names = (Object.keys(SETTINGS) as SettingName[]).filter(
      (name) => !name.startsWith('upload_') || Object.values(config.profiles).some((settings) => settings[name] !== undefined),
    );
    const profiles = Object.fromEntries(
      Object.entries(config.profiles).map(([profile, settings]) => [
        profile,
        Object.fromEntries(names.filter((name) => settings[name] !== undefined).map((name) => [name, displaySetting(name, settings[name]!)])),
      ]),
    );
    if (Object.keys(profiles).length === 0) {
      this.note(`No profiles yet (${this.paths.configFile}); start with \`svc config set base_url <url>\`.`);
    } else {
      const rows = Object.entries(profiles).map(([profile, settings]) => [
        profile === current ? `* ${profile}` : profile,
        ...names.map((name) => settings[name]),
      ]);
      this.log(
        renderTable(
          [
            { title: 'profile', unbroken: true },
            ...names.map((name) => ({ title: name, freeText: name === 'base_url' || name === 'ca_cert' || name === 'upload_fields' })),
          ],
          rows,
          this.io.stdout,
        ),
      );
    }
    return { file: this.paths.configFile, current_profile: current, profiles };
  }
}
