import { randomBytes } from 'node:crypto';
import type { ApiClient } from '../api/client.js';
import type { Key } from '../api/types.js';
import { ApiError } from '../core/errors.js';
import { deleteReport } from '../services/reports.js';
import type { RotationRecord } from './journal.js';

/** A key's scope in words (read-only or read-write, its IP list), or undefined where the service does not show it. */
export function scopeOf(key: { read_only?: boolean | null; allowed_ips?: readonly string[] | null }): string | undefined {
  if (typeof key.read_only !== 'boolean' || !key.allowed_ips) return undefined;
  return `${key.read_only ? 'read-only' : 'read-write'}, ${key.allowed_ips.length > 0 ? [...key.allowed_ips].sort().join(' ') : 'any IP'}`;
}

/** A client that authenticates with one of the two keys, made when it is needed. */
type KeyClient = () => Promise<ApiClient>;

/** What a write that cannot succeed got: refused for the key's scope, let past the scope check, or neither shown (an answer that says nothing of it). */
interface WriteAnswer {
  scope: 'refused' | 'passed' | undefined;
  status: string;
}

/**
 * A DELETE of a report that does not exist (a fresh random id): nothing can be deleted. A read-only
 * key is refused `403 forbidden` where the implementation checks the scope before it looks for the
 * report; any other answer of the request itself (404, 400, 2xx) means the key got past that check.
 */
async function answerToWrite(client: ApiClient): Promise<WriteAnswer> {
  try {
    await deleteReport(client, `rep_${randomBytes(12).toString('hex')}`);
    return { scope: 'passed', status: '2xx' };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status === undefined) throw error;
    const status = `${error.status} ${error.code}`;
    if (error.status === 403 && error.code === 'forbidden') return { scope: 'refused', status };
    const saysNothing = error.status === 401 || error.status === 403 || error.status === 429 || error.status >= 500;
    return { scope: saysNothing ? undefined : 'passed', status };
  }
}

const readOnlyWords = (readOnly: boolean) => (readOnly ? 'read-only' : 'read-write');

/**
 * Whether each key is read-only, where the service shows it (the key API) or a write that cannot
 * succeed shows it. A key let past the scope check is read-write only where the same request was
 * refused for the other key's scope: that shows the implementation checks the scope first (one that
 * looks for the report first answers 404 to a read-only key too).
 */
async function readOnlyOfBoth(
  old: RotationRecord['old_key'],
  shown: Key | undefined,
  clients: { given: KeyClient; old: KeyClient | undefined },
): Promise<{ old: boolean | undefined; given: boolean | undefined; how: string }> {
  const oldShown = typeof old.read_only === 'boolean' ? old.read_only : undefined;
  const givenShown = typeof shown?.read_only === 'boolean' ? shown.read_only : undefined;
  const oldAnswer = oldShown === undefined && clients.old ? await answerToWrite(await clients.old()) : undefined;
  const givenAnswer = givenShown === undefined ? await answerToWrite(await clients.given()) : undefined;
  const scopeFirst = oldAnswer?.scope === 'refused' || givenAnswer?.scope === 'refused';
  const read = (answer: WriteAnswer | undefined) => (answer?.scope === 'refused' ? true : answer?.scope === 'passed' && scopeFirst ? false : undefined);
  const answers = [oldAnswer && `${oldAnswer.status} with ${old.id}`, givenAnswer && `${givenAnswer.status} with the given key`].filter(Boolean);
  return {
    old: oldShown ?? read(oldAnswer),
    given: givenShown ?? read(givenAnswer),
    how: answers.length ? `as a DELETE of a report that does not exist shows (${answers.join(', ')})` : 'as the key API shows',
  };
}

/**
 * Whether a given key has the old key's scope (read-only, IP list): `same (…)`, `other: …`, or
 * `not compared: …`, with what could be shown of it. Where the service does not show both scopes,
 * the keys' answers to a write that cannot succeed show whether each is read-only, where the
 * implementation checks the scope first: nothing is changed.
 */
export async function compareScopes(
  old: RotationRecord['old_key'],
  shown: Key | undefined,
  clients: { given: KeyClient; old: KeyClient | undefined },
): Promise<string> {
  const wanted = scopeOf(old);
  const given = shown && scopeOf(shown);
  if (wanted !== undefined && given !== undefined) return given === wanted ? `same (${given})` : `other: ${given}, where the old key is ${wanted}`;
  const why =
    wanted === undefined
      ? `the service shows no scope of ${old.id}`
      : shown === undefined
        ? 'the key API does not show the given key'
        : 'the service shows no scope of the given key';
  const readOnly = await readOnlyOfBoth(old, shown, clients);
  if (readOnly.old !== undefined && readOnly.given !== undefined) {
    if (readOnly.old !== readOnly.given) return `other: ${readOnlyWords(readOnly.given)}, where ${old.id} is ${readOnlyWords(readOnly.old)}, ${readOnly.how}`;
    return `not compared: ${why}; both keys are ${readOnlyWords(readOnly.old)}, ${readOnly.how}`;
  }
  if (readOnly.given !== undefined) return `not compared: ${why}; the given key is ${readOnlyWords(readOnly.given)}, ${readOnly.how}`;
  if (readOnly.old !== undefined) return `not compared: ${why}; ${old.id} is ${readOnlyWords(readOnly.old)}, ${readOnly.how}`;
  return `not compared: ${why}`;
}
