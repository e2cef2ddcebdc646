import { unlink } from 'node:fs/promises';
import type { ApiClient } from '../api/client.js';
import { redactKey } from '../core/redaction.js';
import { readSecretFile } from '../core/secret-file.js';
import { SvcError } from '../core/errors.js';
import { revokeKey } from '../services/keys.js';
import type { RotationJournal, RotationRecord } from './journal.js';
import { unrecordedNewKeys } from './unrecorded-keys.js';

import type { RotationEvent } from './rotation-events.js';

/**
 * `--abort`: undoes what can be undone. A new key that was never handed to a deploy is revoked (and
 * its file removed); one that may be deployed is left active, as is the old key.
 */
export async function abortRotation(
  record: RotationRecord,
  journal: RotationJournal,
  admin: ApiClient,
  emit: (event: RotationEvent) => void,
): Promise<{ newKeyRevoked: string[]; newKeyLeft: string | undefined }> {
  if (record.status === 'completed' || record.steps.revoke) {
    throw new SvcError(
      'refused',
      'rotation_past_revocation',
      `rotation ${record.id} has already revoked ${record.old_key.id}; there is nothing to undo`,
      `finish it with \`svc keys rotate --resume ${record.id}\``,
    );
  }
  const revoked: string[] = [];
  let left: string | undefined;
  const newKey = record.steps.create?.new_key;
  if ((record.new_key_source ?? 'api') !== 'api') {
    // A key made in the dashboard is the person's: svc neither revokes it nor deletes the file it was given in.
    emit({ event: 'notice', rotation: record.id, message: 'the new key was made in the dashboard: svc leaves it, and the file it was given in, as they are' });
  } else if (record.attempts.deploy && newKey) {
    left = newKey.id ?? undefined;
  } else {
    const candidates = newKey?.id ? [newKey.id] : record.attempts.create ? (await unrecordedNewKeys(record, admin)).map((key) => key.id) : [];
    for (const id of candidates) {
      await revokeKey(admin, id);
      revoked.push(id);
      emit({ event: 'notice', rotation: record.id, message: `revoked the new key ${id}, which was never deployed` });
    }
    if (newKey && record.new_key_file) {
      const content = (await readSecretFile(record.new_key_file).catch(() => undefined))?.trim();
      if (content && redactKey(content) === newKey.prefix_hint) await unlink(record.new_key_file);
    }
  }
  record.status = 'aborted';
  record.aborted = { at: new Date().toISOString(), new_key_revoked: revoked.length > 0 };
  await journal.save(record);
  return { newKeyRevoked: revoked, newKeyLeft: left };
}

/** On a rotation already under way: a deploy command or quiet period given now replaces the recorded one; the key file cannot change. */
