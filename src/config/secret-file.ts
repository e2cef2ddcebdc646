import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { ConfigError } from '../errors.js';

/**
 * Reads a file that holds secrets, refusing it (as ssh does with private keys) when users other
 * than its owner may read or write it. Returns undefined when the file does not exist.
 */
export async function readSecretFile(path: string): Promise<string | undefined> {
  let mode: number;
  try {
    mode = (await stat(path)).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if ((mode & 0o077) !== 0) {
    throw new ConfigError(
      'insecure_file_mode',
      `${path} holds keys but other users may access it (mode ${(mode & 0o777).toString(8).padStart(4, '0')})`,
      `restrict it to its owner: chmod 600 '${path}'`,
    );
  }
  return readFile(path, 'utf8');
}

/** Writes a file that holds secrets: mode 0600 from its first byte, replaced atomically. */
export async function writeSecretFile(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, content, { mode: 0o600 });
}
