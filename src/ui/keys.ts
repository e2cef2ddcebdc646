import type { Key } from '../api/types.js';
import { renderFields, renderTable } from './table.js';

function ipLock(key: Key): string {
  return key.allowed_ips.length ? key.allowed_ips.join(', ') : 'any';
}

function lastUse(key: Key): string {
  return key.last_used_at ? `${key.last_used_at}${key.last_used_ip ? ` from ${key.last_used_ip}` : ''}` : 'never';
}

export function renderKeyRows(keys: Key[]): string {
  return renderTable(
    ['id', 'key', 'name', 'env', 'status', 'read-only', 'IP lock', 'last used', 'last IP', 'created'],
    keys.map((key) => [key.id, key.prefix_hint, key.name, key.environment, key.status, key.read_only ? 'yes' : 'no', ipLock(key), key.last_used_at ?? 'never', key.last_used_ip, key.created_at]),
  );
}

export function renderKey(key: Key): string {
  const fields: Array<[string, string | null]> = [
    ['id', key.id],
    ['key', key.prefix_hint],
    ['name', key.name],
    ['environment', key.environment],
    ['status', key.status],
    ['read-only', key.read_only ? 'yes' : 'no'],
    ['IP lock', ipLock(key)],
    ['last used', lastUse(key)],
    ['created', key.created_at],
  ];
  if (key.revoked_at) fields.push(['revoked', key.revoked_at]);
  return renderFields(fields);
}
