import { readFile, unlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeSecretFile } from './secret-file.js';

/** SQLite's result code for a lock held by another connection. */
const SQLITE_BUSY = 5;

/** How long taking a lock waits for a racing process before concluding it is held. */
const LOCK_WAIT_MS = 250;

/** The lock is held by another process (or another connection of this one); `holder` is what it said of itself. */
export class FileLockHeld extends Error {
  constructor(readonly holder: string) {
    super(`locked by ${holder || 'another process'}`);
    this.name = 'FileLockHeld';
  }
}

/** A lock taken by `takeFileLock`: `describe` says who holds it, for whoever is refused; `release` ends it. */
export interface FileLock {
  describe(holder: string): Promise<void>;
  release(): Promise<void>;
}

/**
 * Makes this process the only holder of `file`: SQLite's exclusive lock on it, an advisory lock of the
 * system (fcntl; LockFileEx on Windows) that ends with the process that holds it, however it ends. A
 * process killed with SIGKILL, a zombie nobody reaps, a PID now used by another program: none holds
 * it, and no one ever judges whether a lock is stale or takes one over. A `.holder` file beside it says
 * who holds it, for a refusal. The lock file is never removed: were it, a process that had opened it
 * just before could lock a file that the next process would not see.
 */
export async function takeFileLock(file: string, holder = `process ${process.pid}`, waitMs = LOCK_WAIT_MS): Promise<FileLock> {
  const holderFile = `${file}.holder`;
  // Not 0: when several processes race for a free lock, SQLite's escalation can refuse every one of them
  // at once (each holds a shared lock the others need gone); a short wait lets exactly one win, and a
  // lock that is held stays refused.
  // Loaded here: every command reads the config file, and few take a lock.
  const { openPrivateDatabase } = await import('./sqlite.js');
  const lock = openPrivateDatabase(file, `PRAGMA busy_timeout = ${waitMs}`);
  try {
    // MEMORY: no journal file beside the lock, which never holds data.
    lock.exec('PRAGMA journal_mode = MEMORY; BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { errcode?: number }).errcode !== SQLITE_BUSY) throw error;
    throw new FileLockHeld((await readFile(holderFile, 'utf8').catch(() => '')).trim());
  }
  const describe = (text: string) => writeSecretFile(holderFile, `${text}\n`);
  await describe(holder);
  return {
    describe,
    async release() {
      await unlink(holderFile).catch(() => undefined);
      lock.close();
    },
  };
}

/** The end of the last `withFileLock` of each file in this process: its callers take turns before taking the system's lock. */
const turns = new Map<string, Promise<unknown>>();

/**
 * Runs `work` holding the lock of `file`, waiting for it up to `waitMs`: a read-modify-write that several
 * processes may make at once (two `svc sandbox start` writing their profiles) is made by one at a time.
 * SQLite's wait blocks the thread, so the wait is taken in short attempts, and callers in this process
 * take turns first (the lock is the process's, and a second caller would wait on the first forever).
 */
export function withFileLock<T>(file: string, waitMs: number, work: () => Promise<T>): Promise<T> {
  const run = async () => {
    const lock = await retryTaking(file, waitMs);
    try {
      return await work();
    } finally {
      await lock.release();
    }
  };
  const result = (turns.get(file) ?? Promise.resolve()).then(run, run);
  const turn = result.catch(() => undefined);
  turns.set(file, turn);
  void turn.then(() => {
    if (turns.get(file) === turn) turns.delete(file);
  });
  return result;
}

async function retryTaking(file: string, waitMs: number): Promise<FileLock> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await takeFileLock(file, `process ${process.pid}`, 10);
    } catch (error) {
      if (!(error instanceof FileLockHeld) || Date.now() >= deadline) throw error;
      await sleep(10 + Math.random() * 40);
    }
  }
}
