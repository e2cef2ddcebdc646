import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Makes a directory and its missing parents, each with `mode` (`mkdir -p`). Node's own
 * `recursive: true` never returns when a directory that exists refuses a child with ENOENT, as
 * /proc does: it makes the parent and tries the child again, forever, at full CPU. Here each
 * level is tried at most twice, and the second ENOENT is the answer. Synchronous, as SQLite's
 * opening is: a few system calls.
 */
export function makeDirectory(path: string, mode: number): void {
  try {
    mkdirSync(path, { mode });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT' || dirname(path) === path) throw error;
  }
  makeDirectory(dirname(path), mode);
  try {
    mkdirSync(path, { mode });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
