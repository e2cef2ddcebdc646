import { open, readFile, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ConfigError, SvcError } from '../errors.js';
import { makeDirectory } from './directory.js';

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
  makeDirectory(dirname(path), 0o700);
  // Loaded when a file is written: it loads node:crypto, which a command that only reads its configuration does without.
  const { default: writeFileAtomic } = await import('write-file-atomic');
  await writeFileAtomic(path, content, { mode: 0o600 });
}

/**
 * Checks, before a secret that is shown only once is made, that writeSecretFile will be able to
 * write it to `path`: its directory is made, and a file is created and removed beside `path`, as
 * the atomic write does. An existing file at `path` is left as it is.
 */
export async function assertSecretFileWritable(path: string, flag: string): Promise<void> {
  const directory = dirname(path);
  // node:crypto is loaded here, not imported: every command that reads its configuration loads this module.
  const { randomBytes } = process.getBuiltinModule('node:crypto');
  const probe = join(directory, `.${basename(path)}.${randomBytes(6).toString('hex')}.check`);
  try {
    makeDirectory(directory, 0o700);
    if ((await stat(path).catch(() => undefined))?.isDirectory()) throw new Error('it is a directory');
    await (await open(probe, 'wx', 0o600)).close();
    await unlink(probe);
  } catch (error) {
    throw new SvcError(
      'usage',
      'secret_file_unwritable',
      `cannot write the secret to ${path}: ${(error as Error).message}`,
      `give ${flag} a path in a directory you can write to`,
    );
  }
}
