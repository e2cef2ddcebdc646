import { join } from 'node:path';
import { type FileLock, FileLockHeld, takeFileLock } from '../core/file-lock.js';

/**
 * Where the `svc webhooks listen` of a profile runs, for `webhooks trigger` to send to by default. A
 * listener holds a lock of the system on its profile's file for as long as it runs (core/file-lock.ts:
 * it ends with the process however it ends, so no stale entry outlives a kill -9), and writes beside
 * it what it listens on; the first listener of a profile holds it, others run without it.
 */
export interface RunningListener {
  url: string;
  forwardTo: string | null;
  pid: number;
}

function lockFile(stateDir: string, profile: string): string {
  return join(stateDir, 'webhooks', 'listeners', `${profile}.lock`);
}

/** Says where this listener runs until the lock is released; undefined when another listener of the profile already says so. */
export async function announceListener(stateDir: string, profile: string, listener: RunningListener): Promise<FileLock | undefined> {
  try {
    return await takeFileLock(lockFile(stateDir, profile), JSON.stringify(listener));
  } catch (error) {
    if (error instanceof FileLockHeld) return undefined;
    throw error;
  }
}

/** The listener of the profile that runs now, if one does. */
export async function runningListener(stateDir: string, profile: string): Promise<RunningListener | undefined> {
  let free: FileLock;
  try {
    free = await takeFileLock(lockFile(stateDir, profile), `process ${process.pid}, looking for a listener`, 0);
  } catch (error) {
    if (!(error instanceof FileLockHeld)) throw error;
    return parsed(error.holder);
  }
  await free.release();
  return undefined;
}

function parsed(holder: string): RunningListener | undefined {
  try {
    const value = JSON.parse(holder) as Partial<RunningListener>;
    if (typeof value.url === 'string' && typeof value.pid === 'number')
      return { url: value.url, forwardTo: typeof value.forwardTo === 'string' ? value.forwardTo : null, pid: value.pid };
  } catch {
    // A listener that has not yet said where it listens: as if none ran.
  }
  return undefined;
}
