import { resolve } from 'node:path';
import { parseBaseUrl } from '../api/base-url.js';
import { assertKey, redactKey } from './keys.js';
import { SETTINGS, type SettingName } from './store.js';

/** Checks a value before it is saved, and returns it in the form to save. */
export function normaliseSetting(name: SettingName, value: string, source: string): string {
  switch (name) {
    case 'base_url':
      return parseBaseUrl(value, source).href.replace(/\/$/, '');
    case 'api_key':
    case 'admin_key':
      assertKey(value, name, source);
      return value;
    case 'ca_cert':
      return resolve(value);
  }
}

/** A setting as it may be shown: secrets redacted. */
export function displaySetting(name: SettingName, value: string): string {
  return SETTINGS[name].secret ? redactKey(value) : value;
}
