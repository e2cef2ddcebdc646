import type { KitKeys } from './kit-keys.js';
import type { Exchange, ImplementationClient, Purpose, Role } from './http.js';
import { CheckSkipped } from './outcome.js';
import { isJsonObject } from '../core/json-object.js';

type KeyRole = Exclude<Role, 'revocable' | 'none'>;

const KEY_OF: Record<KeyRole, Exclude<keyof KitKeys, 'revocable'>> = {
  api: 'api',
  admin: 'admin',
  readOnly: 'readOnly',
  ipLocked: 'ipLocked',
  other: 'other',
  otherAdmin: 'otherAdmin',
  rateLimit: 'rateLimit',
};

export interface KeyedRequest {
  role: KeyRole;
  purpose: Purpose;
  json?: unknown;
  body?: Uint8Array;
  headers?: Record<string, string>;
}

/** A request with one of the kit's keys. */
export function sendWithKey(context: { client: ImplementationClient; keys: KitKeys }, method: string, path: string, options: KeyedRequest): Promise<Exchange> {
  const key = context.keys[KEY_OF[options.role]];
  if (!key) throw new CheckSkipped(`needs the ${options.role} key`);
  const headers = { ...options.headers };
  let body: string | Uint8Array | undefined = options.body;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  return context.client.send({ method, path, authorization: `Bearer ${key}`, role: options.role, purpose: options.purpose, headers, body });
}

/** The `id` of a resource answer, if it has one. */
export function idOf(exchange: Pick<Exchange, 'json'>): string | undefined {
  const body = exchange.json;
  if (!isJsonObject(body)) return undefined;
  const { id } = body;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** A field of a resource answer, when the answer is an object. */
export function field(exchange: Pick<Exchange, 'json'>, name: string): unknown {
  const body = exchange.json;
  return isJsonObject(body) ? body[name] : undefined;
}
