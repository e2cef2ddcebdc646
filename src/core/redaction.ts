/** The key prefixes of spec part 5.5; the prefix selects the environment. */
export const KEY_PREFIXES = { live: 'svc_live_', test: 'svc_test_', admin: 'svc_admin_' } as const;

export type KeyEnvironment = keyof typeof KEY_PREFIXES;

/**
 * A key's or webhook secret's prefix, then a character of what follows it. The specification fixes
 * no alphabet for that: base64's `+`, `/` and `=` and URL-safe base64's `-` and `_` are taken too.
 */
const SECRET_TOKEN = '(?:svc_(?:live|test|admin)|whsec)_[A-Za-z0-9_+/=-]';
/** A key- or webhook-secret-shaped token. */
const SECRET_PATTERN = new RegExp(`${SECRET_TOKEN}+`, 'g');
const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** The environment a key's prefix selects (spec part 5.5), or undefined for a string of no known prefix. */
export function keyEnvironment(key: string): KeyEnvironment | undefined {
  for (const [environment, prefix] of Object.entries(KEY_PREFIXES)) {
    if (key.startsWith(prefix) && key.length > prefix.length) return environment as KeyEnvironment;
  }
  return undefined;
}

/** Shows the prefix and the last four characters only, e.g. `svc_test_…a1b2` (webhook secrets likewise). */
export function redactKey(key: string): string {
  const environment = keyEnvironment(key);
  const prefix = environment ? KEY_PREFIXES[environment] : key.startsWith(WEBHOOK_SECRET_PREFIX) ? WEBHOOK_SECRET_PREFIX : '';
  const tail = key.length - prefix.length > 8 ? key.slice(-4) : '';
  return `${prefix}…${tail}`;
}

/** Given secrets shorter than this are not redacted: they would hide ordinary words. */
const REDACTED_SECRET_MIN_LENGTH = 8;
/** A key- or webhook-secret-shaped token that runs to the end of a text, where more of it may follow. */
const TRAILING_SECRET_PATTERN = new RegExp(`${SECRET_TOKEN}*$`);
const SECRET_STARTS = [...Object.values(KEY_PREFIXES), WEBHOOK_SECRET_PREFIX];

/**
 * Replaces every given secret and every key- or webhook-secret-shaped token in a text by its
 * redacted form. The given secrets go first, whatever their characters, and the longest of them
 * first: a token's pattern, or a shorter secret, could otherwise match only part of one and leave
 * the rest of it in clear.
 */
export function redactText(text: string, secrets: readonly string[] = []): string {
  const given = secrets.filter((secret) => secret.length >= REDACTED_SECRET_MIN_LENGTH).sort((a, b) => b.length - a.length);
  let redacted = text;
  for (const secret of given) redacted = redacted.split(secret).join(redactKey(secret));
  return redacted.replace(SECRET_PATTERN, (key) => redactKey(key));
}

/** A JSON-like value with each of its strings redacted as redactText does. */
export function redactValue<T>(value: T, secrets: readonly string[] = []): T {
  if (typeof value === 'string') return redactText(value, secrets) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactValue(item, secrets)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, redactValue(item, secrets)])) as T;
  }
  return value;
}

/**
 * Where the end of a text that is still being written may be the beginning of a secret that
 * redactText would hide once it is whole: a key-shaped token, or the first characters of a given
 * secret or of a key prefix. The text's length when its end cannot be.
 */
export function unfinishedSecretStart(text: string, secrets: readonly string[] = []): number {
  const token = text.search(TRAILING_SECRET_PATTERN);
  let start = token < 0 ? text.length : token;
  const candidates = [...SECRET_STARTS, ...secrets.filter((secret) => secret.length >= REDACTED_SECRET_MIN_LENGTH)];
  for (const candidate of candidates) {
    for (let length = Math.min(candidate.length - 1, text.length); text.length - length < start; length--) {
      if (text.endsWith(candidate.slice(0, length))) {
        start = text.length - length;
        break;
      }
    }
  }
  return start;
}
