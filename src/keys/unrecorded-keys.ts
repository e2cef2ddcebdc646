import type { ApiClient } from '../api/client.js';
import type { PagingStop } from '../api/paging.js';
import type { Key } from '../api/types.js';
import { SvcError } from '../core/errors.js';
import { listAllKeys } from '../services/keys.js';
import { type RotationRecord, rotationOfKeyName } from './journal.js';

/** A listing cut short cannot show that a key is not there: the run stops, having made and revoked nothing. */
function listingIncomplete(lookingFor: string, stopped: PagingStop): SvcError {
  return new SvcError(
    'rotationStepFailed',
    'key_listing_incomplete',
    `svc could not read every key of the workspace to look for ${lookingFor}: ${stopped.message}; nothing was created or revoked`,
    'the key may exist (`svc keys list` or the dashboard shows it); running the command again looks for it again',
  );
}

/**
 * The active keys under the name of the rotation's new key: those an interrupted run may have
 * created without recording them.
 */
export async function unrecordedNewKeys(record: RotationRecord, admin: ApiClient): Promise<Key[]> {
  const { keys, stopped } = await listAllKeys(admin);
  if (stopped) throw listingIncomplete(`"${record.new_key_name}", which an earlier run may have created`, stopped);
  return keys.filter((key) => key.name === record.new_key_name && key.status === 'active');
}

/**
 * The active keys that a rotation of `oldKeyId` made, as their names say, whichever runner ran it and
 * whatever became of its journal; undefined where the service offers no key list to look in.
 */
export async function keysOfRotationsOf(oldKeyId: string, admin: ApiClient): Promise<Key[] | undefined> {
  let listing: Awaited<ReturnType<typeof listAllKeys>>;
  try {
    listing = await listAllKeys(admin);
  } catch (error) {
    if (error instanceof SvcError && error.code === 'key_api_not_offered') return undefined;
    throw error;
  }
  if (listing.stopped) throw listingIncomplete(`a key that an earlier rotation of ${oldKeyId} made`, listing.stopped);
  return listing.keys.filter((key) => key.status === 'active' && key.id !== oldKeyId && rotationOfKeyName(key.name, oldKeyId) !== undefined);
}
