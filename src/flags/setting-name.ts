import { Args } from '@oclif/core';
import { isSettingName, SETTINGS, type SettingName } from '../config/config-file.js';
import { SvcError } from '../core/errors.js';

const NAMES = Object.keys(SETTINGS).join(', ');

const settingName = Args.custom<SettingName>({
  parse: async (name) => {
    if (!isSettingName(name)) throw new SvcError('usage', 'unknown_setting', `${name} is not a setting svc knows`, `give one of ${NAMES}`);
    return name;
  },
});

/**
 * The NAME argument of `config get`, `set` and `unset`: a setting svc knows, named in the description
 * between words. oclif's `options` would show them in help as one word, `(base_url|api_key|…)`, cut
 * across lines wherever the terminal's edge falls, setting names with them.
 */
export const settingNameArg = (description: string) => settingName({ description: `${description}: ${NAMES}`, required: true });
