import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random base62 text; 62 does not divide 256, so bytes past the last full multiple are drawn again. */
export function randomToken(length: number): string {
  let token = '';
  while (token.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && token.length < length) token += ALPHABET[byte % 62];
    }
  }
  return token;
}

export type IdPrefix = 'rep' | 'app' | 'doc' | 'key' | 'evt' | 'ws';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomToken(24)}`;
}

export function nowIso(now = Date.now()): string {
  return new Date(now).toISOString();
}
