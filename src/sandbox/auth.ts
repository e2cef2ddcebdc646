import { HttpError } from './http.js';
import { hashSecret, type SandboxStore, type StoredKey } from './database.js';

export type Scope = 'read' | 'write' | 'admin';

export function clientAddress(remoteAddress: string | undefined): string {
  const address = remoteAddress ?? '';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/**
 * Part 5 and part 7: who is calling. Keys are looked up by the hash of their secret; the lookup is
 * cached, and the cache is told of every change, so a revocation takes effect on the next request.
 */
export class Authenticator {
  /** By Authorization header: the hash is computed once per key, not once per request. */
  private readonly cache = new Map<string, StoredKey | null>();

  constructor(private readonly store: SandboxStore) {}

  forget(): void {
    this.cache.clear();
  }

  authenticate(header: string | undefined, ip: string): StoredKey {
    const match = /^Bearer ([^\s]+)$/.exec(header ?? '');
    if (!match) {
      throw new HttpError(401, 'unauthorized', 'the Authorization header is missing or malformed; send "Authorization: Bearer <API_KEY>"');
    }
    let stored = this.cache.get(match[0]);
    if (stored === undefined) {
      stored = this.store.keyByHash(hashSecret(match[1]!)) ?? null;
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(match[0], stored);
    }
    if (!stored || stored.key.status !== 'active') {
      throw new HttpError(401, 'invalid_key', 'the key is revoked, expired or does not exist');
    }
    if (stored.key.allowed_ips.length > 0 && !stored.key.allowed_ips.includes(ip)) {
      throw new HttpError(403, 'ip_not_allowed', `requests from ${ip} are not allowed for this key`);
    }
    return stored;
  }
}

/** Part 4 rule 3 and part 5: read-only keys read; key management needs the admin key. */
export function authorise(stored: StoredKey, scope: Scope): void {
  if (scope === 'admin' && stored.key.environment !== 'admin') {
    throw new HttpError(403, 'forbidden', 'key management needs an admin key (svc_admin_…)');
  }
  if (scope === 'write' && stored.key.read_only) {
    throw new HttpError(403, 'forbidden', 'this key is read-only; writes need a key without the read-only limit');
  }
}
