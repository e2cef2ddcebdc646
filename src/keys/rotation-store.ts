import type { PostgresLocation } from '../core/postgres-url.js';
import { FileJournal } from './file-journal.js';
import type { RotationJournal } from './journal.js';

/**
 * The journals and locks of rotations: in the PostgreSQL database `shared` names, which every runner
 * reaches, or else in the state directory of this machine. The driver of PostgreSQL is loaded only for it.
 */
export async function openRotationJournal(shared: PostgresLocation | undefined, stateDir: string): Promise<RotationJournal> {
  if (!shared) return FileJournal.under(stateDir);
  const { PostgresJournal } = await import('./postgres-journal.js');
  return PostgresJournal.open(shared);
}
