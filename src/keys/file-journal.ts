import { createHash } from 'node:crypto';
import { readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirectory } from '../core/directory.js';
import { readSecretFile, writeSecretFile } from '../core/secret-file.js';
import { openPrivateDatabase } from '../core/sqlite.js';
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

/** SQLite's result code for a lock held by another connection. */
const SQLITE_BUSY = 5;

/** How long taking a rotation's lock waits for a racing process before concluding it is held. */
const LOCK_WAIT_MS = 250;

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
   * The lock is SQLite's exclusive lock on a file named after the key, an advisory lock of the system
   * (fcntl; LockFileEx on Windows) that ends with the process that holds it, however it ends. A run
   * killed with SIGKILL, a zombie nobody reaps, a PID now used by another program: none holds it, and
   * no run ever judges whether a lock is stale or takes one over. A `.pid` file beside it names the
   * holder for a refusal. The lock file is never removed: were it, a process that had opened it just
   * before could lock a file that the next process would not see. One machine's journals name one
   * key by its id: the base URL is not part of the lock.
   */
  async lock(keyId: string): Promise<RotationLock> {
    const name = `key-${createHash('sha256').update(keyId).digest('hex').slice(0, 32)}`;
    const lockFile = join(this.dir, `${name}.lock`);
    const pidFile = join(this.dir, `${name}.pid`);
    makeDirectory(this.dir, 0o700);
    // Not 0: when several processes race for a free lock, SQLite's escalation can refuse every one of them
    // at once (each holds a shared lock the others need gone); a short wait lets exactly one win, and a
    // lock that is held stays refused.
    const lock = openPrivateDatabase(lockFile, `PRAGMA busy_timeout = ${LOCK_WAIT_MS}`);
    try {
      // MEMORY: no journal file beside the lock, which never holds data.
      lock.exec('PRAGMA journal_mode = MEMORY; BEGIN EXCLUSIVE');
    } catch (error) {
      lock.close();
      if ((error as { errcode?: number }).errcode !== SQLITE_BUSY) throw error;
      const holder = (await readFile(pidFile, 'utf8').catch(() => '')).trim();
      throw rotationInProgress(keyId, holder ? `process ${holder}` : undefined);
    }
    await writeSecretFile(pidFile, `${process.pid}\n`);
    return {
      // A lock of the system is lost only with the process that holds it.
      lost: new AbortController().signal,
      release: async () => {
        await unlink(pidFile).catch(() => undefined);
        lock.close();
      },
    };
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
