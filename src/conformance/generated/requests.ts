/**
 * The requests the generated checks send, and each as a person sends it again: a curl command with
 * the base URL and the keys in variables (`"$SVC_BASE_URL"`, `$SVC_API_KEY`), never a key itself.
 */
import type { KitContext } from '../context.js';
import type { Exchange, Purpose, Role } from '../http.js';
import type { KitKeys } from '../kit-keys.js';

/** The kit's keys by role, and the variable each is given in (`svc contract verify` reads them from there). */
const KEY_VARIABLES = {
  api: 'SVC_API_KEY',
  admin: 'SVC_ADMIN_KEY',
  readOnly: 'SVC_READ_ONLY_KEY',
  ipLocked: 'SVC_IP_LOCKED_KEY',
  other: 'SVC_OTHER_WORKSPACE_KEY',
  otherAdmin: 'SVC_OTHER_WORKSPACE_ADMIN_KEY',
  rateLimit: 'SVC_RATE_LIMIT_KEY',
} as const satisfies Partial<Record<Role, string>>;

export type KeyRole = keyof typeof KEY_VARIABLES;

const KEY_OF: Record<KeyRole, Exclude<keyof KitKeys, 'revocable'>> = {
  api: 'api',
  admin: 'admin',
  readOnly: 'readOnly',
  ipLocked: 'ipLocked',
  other: 'other',
  otherAdmin: 'otherAdmin',
  rateLimit: 'rateLimit',
};

/**
 * Who a generated request is from: one of the kit's keys; a key the kit made for the check (its
 * secret is shown as a variable the replay sets); or a header that authenticates nothing (none, a
 * malformed one, an unknown key), with the form a replay shows it in.
 */
export type Credential =
  { role: KeyRole } | { role: 'revocable'; secret: string; variable: string } | { role: 'none'; header: string | null; shown: string | null };

export interface GeneratedRequest {
  method: string;
  /** Path and query, relative to the base URL. */
  path: string;
  /** The path as a replay shows it, an id the implementation gave as the variable a step before set (`/v1/reports/$REPORT_1`). */
  shownPath?: string | undefined;
  credential: Credential;
  headers?: Record<string, string> | undefined;
  body?: string | Uint8Array | undefined;
  /** What a replay shows for a body that is no text (an upload, whose headers go with it), in place of the body and its headers. */
  bodyShown?: string | undefined;
}

/** A JSON body as the kit sends it. */
export function jsonRequest(method: string, path: string, credential: Credential, value: unknown): GeneratedRequest {
  return { method, path, credential, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
}

function authorization(keys: KitKeys, credential: Credential): string | null {
  if (credential.role === 'none') return credential.header;
  if (credential.role === 'revocable') return `Bearer ${credential.secret}`;
  const key = keys[KEY_OF[credential.role]];
  if (!key) throw new Error(`the run holds no ${credential.role} key`);
  return `Bearer ${key}`;
}

/** Whether the run holds the key of a role. */
export function holds(keys: KitKeys, role: KeyRole): boolean {
  return Boolean(keys[KEY_OF[role]]);
}

/**
 * Sends a generated request for a check. Those that authenticate nothing are paced as one
 * credential: an implementation counts them against the caller's address, whatever header each bears.
 */
export function sendGenerated(context: KitContext, purpose: Purpose, request: GeneratedRequest): Promise<Exchange> {
  const { credential } = request;
  return context.client.send({
    method: request.method,
    path: request.path,
    authorization: authorization(context.keys, credential),
    role: credential.role,
    purpose,
    headers: request.headers,
    body: request.body,
    ...(credential.role === 'none' && { bucket: 'generated: no valid key' }),
  });
}

const ANSI_C: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Text as one word of a POSIX shell, on one line: in single quotes, or where it holds a control
 * character or one beyond ASCII, in bash's `$'…'` with each such character escaped.
 */
function quoted(text: string): string {
  if (/^[\u0020-\u007e]*$/.test(text)) return `'${text.replace(/'/g, `'\\''`)}'`;
  const escaped = [...text].map((character) => {
    const code = character.codePointAt(0)!;
    if (ANSI_C[character]) return ANSI_C[character];
    if (code >= 0x20 && code < 0x7f) return character;
    return code > 0xffff ? `\\U${code.toString(16).padStart(8, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return `$'${escaped.join('')}'`;
}

/** Every character of a path outside the safe ones percent-encoded, so that it goes into double quotes as it is (an id is the implementation's). */
function safePath(path: string): string {
  return path.replace(/[^A-Za-z0-9\-._~/?=&%:+,;@]/gu, (character) => encodeURIComponent(character));
}

function shownAuthorization(credential: Credential): string | null {
  if (credential.role === 'none') return credential.shown;
  if (credential.role === 'revocable') return `Bearer $${credential.variable}`;
  return `Bearer $${KEY_VARIABLES[credential.role]}`;
}

/**
 * The request as a curl command a person runs again (`SVC_BASE_URL` and the key variables set as
 * for `svc contract verify`): no key in it, an id of the implementation's percent-encoded, a body
 * of bytes (an upload) named rather than shown.
 */
export function replayOf(request: GeneratedRequest): string {
  const parts = ['curl', '-X', request.method, `"$SVC_BASE_URL${request.shownPath ?? safePath(request.path)}"`];
  const header = shownAuthorization(request.credential);
  if (header !== null) parts.push('-H', `"Authorization: ${header}"`);
  if (request.bodyShown) return [...parts, `--data-binary @<${request.bodyShown}>`].join(' ');
  for (const [name, value] of Object.entries(request.headers ?? {})) parts.push('-H', quoted(`${name}: ${value}`));
  if (typeof request.body === 'string') parts.push('--data-raw', quoted(request.body));
  else if (request.body !== undefined) parts.push(`--data-binary @<a body of ${request.body.length} bytes>`);
  return parts.join(' ');
}
