import type { Key } from '../api/types.js';
import type { Output } from './io.js';
import { type Cell, renderFields, renderTable } from './table.js';
import type { TimeView } from './time.js';

function ipLock(key: Key): string {
  return key.allowed_ips.length ? key.allowed_ips.join(', ') : 'any';
}

export function lastUse(key: Key, times: TimeView): string {
  return key.last_used_at ? `${times.full(key.last_used_at)}${key.last_used_ip ? ` from ${key.last_used_ip}` : ''}` : 'never';
}

export function renderKeyRows(keys: Key[], times: TimeView, out: Output): string {
  return renderTable(
    [
      'id',
      // What the command is for (last use, read-only, IP lock) stays; what identifies a key to a person goes first.
      { title: 'key', leaveOut: 3 },
      { title: 'name', freeText: true, leaveOut: 4 },
      'env',
      'status',
      'read-only',
      { title: 'IP lock', freeText: true },
      'last used',
      { title: 'last IP', leaveOut: 2 },
      { title: 'created', leaveOut: 1 },
    ],
    keys.map((key) => [
      key.id,
      key.prefix_hint,
      key.name,
      key.environment,
      key.status,
      key.read_only ? 'yes' : 'no',
      ipLock(key),
      key.last_used_at ? times.short(key.last_used_at) : 'never',
      key.last_used_ip,
      times.short(key.created_at),
    ]),
    out,
  );
}

export function renderKey(key: Key, times: TimeView, out: Output): string {
  const fields: Array<[string, Cell]> = [
    ['id', key.id],
    ['key', key.prefix_hint],
    ['name', key.name],
    ['environment', key.environment],
    ['status', key.status],
    ['read-only', key.read_only ? 'yes' : 'no'],
    ['IP lock', ipLock(key)],
    ['last used', lastUse(key, times)],
    ['created', times.full(key.created_at)],
  ];
  if (key.revoked_at) fields.push(['revoked', times.full(key.revoked_at)]);
  return renderFields(fields, out);
}
