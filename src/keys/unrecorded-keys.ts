import type { ApiClient } from '../api/client.js';
import type { Key } from '../api/types.js';
import { SvcError } from '../core/errors.js';
import { listAllKeys } from '../services/keys.js';
import type { RotationRecord } from './journal.js';

/**
 * The active keys under the name of the rotation's new key: those an interrupted run may have
 * created without recording them. A listing cut short cannot show that there is none, so it stops the run.
 */
export async function unrecordedNewKeys(record: RotationRecord, admin: ApiClient): Promise<Key[]> {
  const { keys, stopped } = await listAllKeys(admin);
  if (stopped) {
    throw new SvcError(
      'rotationStepFailed',
      'key_listing_incomplete',
      `svc could not read every key of the workspace to look for "${record.new_key_name}", which an earlier run may have created: ${stopped.message}; nothing was created or revoked`,
      'the key may exist (`svc keys list` or the dashboard shows it); running the command again looks for it again',
    );
  }
  return keys.filter((key) => key.name === record.new_key_name && key.status === 'active');
}
