import { parsedOrUndefined, withDefaults } from '../api/answer.js';
import type { ApiClient } from '../api/client.js';
import type { ApiResponse } from '../api/exchange.js';
import { dataOf } from '../api/data.js';
import { type ListingPage, MAX_PAGES, type PagingStop, readListing } from '../api/paging.js';
import type { Answered, Key, KeyCreate, KeyList, KeyRevocation, KeyWithSecret } from '../api/types.js';
import { ApiError, SvcError } from '../core/errors.js';

/** A key as the API saw it, with the API's own clock at that moment (from the answer's Date header). */
export interface ObservedKey {
  key: Key;
  serverTime: number;
}

/**
 * The server's clock from an answer's Date header (RFC 9110 §6.6.1; whole seconds, rounded down),
 * so that last-use times are compared with the clock that wrote them. The local clock when absent.
 */
function serverTimeOf(response: ApiResponse): number {
  const date = Date.parse(response.headers.get('date') ?? '');
  return Number.isNaN(date) ? Date.now() : date;
}

/** Statuses of a key operation the service does not offer: only DELETE /v1/keys/{id} is stated (spec part 4). */
const NOT_OFFERED = new Set([404, 405, 501]);

function isNotOffered(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status !== undefined && NOT_OFFERED.has(error.status);
}

function notOffered(operation: string, error: ApiError): SvcError {
  return new SvcError(
    'notOffered',
    'key_api_not_offered',
    `the service offers no ${operation} (it answered ${error.status} ${error.code}); the specification states only DELETE /v1/keys/{id} for keys`,
    'keys are made and shown in the dashboard (Settings › API Keys); `svc keys rotate KEY_ID --new-key-file FILE` takes a key made there, and `svc keys revoke` revokes one',
    { cause: error },
  );
}

export async function createKey(client: ApiClient, input: KeyCreate): Promise<KeyWithSecret> {
  try {
    return dataOf(await client.POST('/v1/keys', { body: input }), 'POST /v1/keys');
  } catch (error) {
    throw isNotOffered(error) ? notOffered('key creation (POST /v1/keys)', error) : error;
  }
}

/**
 * A key, or the error that shows that the service offers no key reads. A 404 is told apart from a
 * key that does not exist by the list of keys: where that is offered, the key is unknown. Creates nothing.
 */
async function keyOrNotOffered(client: ApiClient, id: string): Promise<Key | ApiError> {
  try {
    return await getKey(client, id);
  } catch (error) {
    if (!isNotOffered(error)) throw error;
    if (error.status === 404) {
      const listOffered = await listKeys(client, { limit: 1 }).then(
        () => true,
        (listError: unknown) => {
          if (listError instanceof SvcError && listError.code === 'key_api_not_offered') return false;
          throw listError;
        },
      );
      if (listOffered) throw error;
    }
    return error;
  }
}

/** A key, or `undefined` when the service offers no key reads (an unknown key still throws its 404). */
export async function findKeyIfOffered(client: ApiClient, id: string): Promise<Key | undefined> {
  const found = await keyOrNotOffered(client, id);
  return found instanceof ApiError ? undefined : found;
}

/** A key; a service without key reads gets the dashboard's hint rather than "check the id". */
export async function readKey(client: ApiClient, id: string): Promise<Key> {
  const found = await keyOrNotOffered(client, id);
  if (found instanceof ApiError) throw notOffered(`key reads (GET /v1/keys/${id})`, found);
  return found;
}

export async function getKey(client: ApiClient, id: string): Promise<Key> {
  return (await observeKey(client, id)).key;
}

export async function observeKey(client: ApiClient, id: string): Promise<ObservedKey> {
  const answer = await client.GET('/v1/keys/{id}', { path: { id } });
  return { key: dataOf(answer, `GET /v1/keys/${id}`), serverTime: serverTimeOf(answer) };
}

export async function listKeys(client: ApiClient, query: { limit?: number; starting_after?: string }): Promise<KeyList> {
  try {
    return dataOf(await client.GET('/v1/keys', { query }), 'GET /v1/keys');
  } catch (error) {
    throw isNotOffered(error) ? notOffered('key list (GET /v1/keys)', error) : error;
  }
}

/** Every key of the workspace, following `has_more`; `stopped` says why paging stopped before the end. */
export async function listAllKeys(client: ApiClient, maxPages = MAX_PAGES): Promise<{ keys: Key[]; stopped: PagingStop | undefined }> {
  const { items, stopped } = await readListing<Key>(
    async (cursor) => {
      const page = await listKeys(client, { limit: 100, starting_after: cursor });
      const last = page.data.at(-1);
      const next: ListingPage<Key>['next'] = !page.has_more
        ? { kind: 'end' }
        : last
          ? { kind: 'next', at: last.id, how: 'has_more, after the last id' }
          : { kind: 'unknown', why: 'has_more is true on a page without keys' };
      return { items: page.data, next };
    },
    (key) => key.id,
    maxPages,
  );
  return { keys: items, stopped };
}

/**
 * Revokes a key (spec part 5.7). The revocation result is not shown: 200, 202 or 204, with a body
 * or none. The result is the answer's own object, with `id` and `revoked: true` added where it
 * leaves them out; `revoked_at` only when the service sends it.
 */
export async function revokeKey(client: ApiClient, id: string): Promise<Answered<KeyRevocation>> {
  const answer = await client.DELETE('/v1/keys/{id}', { path: { id } });
  return withDefaults(parsedOrUndefined(answer.text), { id, revoked: true });
}

/**
 * One read request made with the client's own key (any key may read a page of reports); returns
 * the server's time of the answer. A key that does not work throws its ApiError (401, 403).
 */
export async function probeKey(client: ApiClient): Promise<{ serverTime: number }> {
  return { serverTime: serverTimeOf(await client.GET('/v1/reports')) };
}
