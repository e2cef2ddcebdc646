import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Makes a directory and its missing parents, each with `mode` (`mkdir -p`). Node's own
 * `recursive: true` never returns when a directory that exists refuses a child with ENOENT, as
 * /proc does: it makes the parent and tries the child again, forever, at full CPU. Here each
 * level is tried at most twice, and the second ENOENT is the answer.
 */
export async function makeDirectory(path: string, mode: number): Promise<void> {
  try {
    await mkdir(path, { mode });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT' || dirname(path) === path) throw error;
  }
  await makeDirectory(dirname(path), mode);
  try {
    await mkdir(path, { mode });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
