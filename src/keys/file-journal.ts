import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { FileLockHeld, takeFileLock } from '../core/file-lock.js';
import { readSecretFile, writeSecretFile } from '../core/secret-file.js';
import {
  assertRotationId,
  parseRecord,
  type RotationJournal,
  type RotationLock,
  type RotationRecord,
  rotationInProgress,
  rotationMovedOn,
  rotationNotFound,
} from './journal.js';

/** The rotation journals of one machine's user: a file per rotation, and a lock per rotated key, in one directory. */
export class FileJournal implements RotationJournal {
  constructor(readonly dir: string) {}

  /** The journals under a state directory (`$XDG_STATE_HOME/svc` of the command's environment). */
  static under(stateDir: string): FileJournal {
    return new FileJournal(join(stateDir, 'rotations'));
  }

  get where(): string {
    return this.dir;
  }

  private file(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  async save(record: RotationRecord): Promise<void> {
    record.updated_at = new Date().toISOString();
    await writeSecretFile(this.file(record.id), `${JSON.stringify(record, null, 2)}\n`);
  }

  async load(id: string): Promise<RotationRecord> {
    assertRotationId(id);
    const text = await readSecretFile(this.file(id));
    if (text === undefined) throw rotationNotFound(id, this.dir);
    return parseRecord(text, id, this.file(id));
  }

  async list(of?: { oldKeyId: string; baseUrl: string }): Promise<RotationRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const ids = names.filter((name) => /^rot_[0-9a-f]+\.json$/.test(name)).map((name) => name.slice(0, -'.json'.length));
    const records = await Promise.all(ids.map((id) => this.load(id)));
    return records
      .filter((record) => !of || (record.old_key.id === of.oldKeyId && record.base_url === of.baseUrl))
      .sort((a, b) => b.started_at.localeCompare(a.started_at));
  }

  /**
   * The lock is the system's, on a file named after the key (see takeFileLock): it ends with the
   * process that holds it, however it ends, and no run ever judges whether a lock is stale. One
   * machine's journals name one key by its id: the base URL is not part of the lock.
   */
  async lock(keyId: string): Promise<RotationLock> {
    const name = `key-${createHash('sha256').update(keyId).digest('hex').slice(0, 32)}`;
    try {
      const lock = await takeFileLock(join(this.dir, `${name}.lock`));
      // A lock of the system is lost only with the process that holds it.
      return { lost: new AbortController().signal, release: () => lock.release() };
    } catch (error) {
      if (error instanceof FileLockHeld) throw rotationInProgress(keyId, error.holder || undefined);
      throw error;
    }
  }

  async assertUnchanged(record: RotationRecord): Promise<void> {
    const saved = await readSecretFile(this.file(record.id));
    if (saved === undefined || (JSON.parse(saved) as RotationRecord).updated_at === record.updated_at) return;
    throw rotationMovedOn(record);
  }

  async close(): Promise<void> {
    // Nothing stays open between calls.
  }
}
