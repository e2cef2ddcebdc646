import { resolve } from 'node:path';
import { parseBaseUrl } from '../api/base-url.js';
import { ConfigError } from '../core/errors.js';
import { redactKey } from '../core/redaction.js';
import { assertKey } from './credentials.js';
import { SETTINGS, type SettingName } from './config-file.js';
import { parseEncoding, parseFieldName, parsePairsSetting } from './upload-settings.js';
import { describePostgres, postgresSecrets } from '../core/postgres-url.js';
import { parseRotationStore } from './rotation-store.js';
import { describeStore, parseStoreLocation } from './webhook-store.js';

/** Checks a value before it is saved, and returns it in the form to save. */
export function normaliseSetting(name: SettingName, value: string, source: string): string {
  switch (name) {
    case 'base_url':
      return parseBaseUrl(value, source).href.replace(/\/$/, '');
    case 'api_key':
    case 'read_only_key':
    case 'ip_locked_key':
    case 'other_workspace_key':
    case 'revocable_key':
    case 'rate_limit_key':
      assertKey(value, 'api_key', source);
      return value;
    case 'admin_key':
    case 'other_workspace_admin_key':
      assertKey(value, 'admin_key', source);
      return value;
    case 'revocable_key_id':
      if (!value.startsWith('key_')) throw new ConfigError('invalid_setting', `revocable_key_id from ${source} is "${value}"`, 'give the id of a key, key_…');
      return value;
    case 'webhook_secret':
      if (value.trim() !== value || value === '')
        throw new ConfigError('invalid_setting', `webhook_secret from ${source} is empty or has white space around it`, 'give the secret alone');
      return value;
    case 'ca_cert':
    case 'client_cert':
    case 'client_key':
      return resolve(value);
    case 'ca_cert_only':
      if (!/^(true|false)$/.test(value)) throw new ConfigError('invalid_setting', `ca_cert_only from ${source} is "${value}"`, 'give true or false');
      return value;
    case 'upload_encoding':
      return parseEncoding(value, source);
    case 'upload_file_field':
    case 'upload_type_field':
    case 'upload_applicant_field':
      return parseFieldName(value, source);
    case 'upload_fields':
      return JSON.stringify(parsePairsSetting('field', value, source));
    case 'upload_query':
      return JSON.stringify(parsePairsSetting('query', value, source));
    case 'upload_headers':
      return JSON.stringify(parsePairsSetting('header', value, source));
    case 'webhook_store': {
      const location = parseStoreLocation(value, source);
      return location.kind === 'sqlite' ? location.file : location.url;
    }
    case 'rotation_store':
      return parseRotationStore(value, source).url;
  }
}

/** Whether a value of this setting is a secret: a key, or a connection string (a SQLite file's path is none). */
export function isSecretValue(name: SettingName, value: string): boolean {
  return name === 'webhook_store' ? postgresSecrets(value).length > 0 : SETTINGS[name].secret;
}

/** A setting as it may be shown: secrets redacted. */
export function displaySetting(name: SettingName, value: string): string {
  if (name === 'webhook_store') return describeStore(parseStoreLocation(value, 'the profile'));
  if (name === 'rotation_store') return describePostgres(parseRotationStore(value, 'the profile'));
  return SETTINGS[name].secret ? redactKey(value) : value;
}
