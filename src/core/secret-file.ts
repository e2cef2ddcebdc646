import { lstat, open, readFile, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ConfigError, SvcError } from './errors.js';
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

/**
 * Checks, before a secret that is shown only once is made, that `path` is a new file for it, as
 * `keys create` needs: its directory must exist (a mistyped one is not made), and a file there is
 * refused unless `force`, as it may hold the only copy of another secret; then that the secret can
 * be written there. With `force`, what the file holds is first copied to `<path>.old` (0600,
 * written atomically) and stays there: that path is returned.
 */
export async function prepareNewSecretFile(path: string, flag: string, force: boolean): Promise<string | undefined> {
  const directory = dirname(path);
  if (!(await stat(directory).catch(() => undefined))?.isDirectory()) {
    throw new SvcError(
      'usage',
      'secret_file_directory_missing',
      `${flag} ${path}: the directory ${directory} does not exist`,
      `check the path; svc makes no directory for a key file (mkdir -m 700 '${directory}' makes it)`,
    );
  }
  const existing = await lstat(path).catch(() => undefined);
  if (existing === undefined || existing.isDirectory()) {
    await assertSecretFileWritable(path, flag);
    return undefined;
  }
  if (!force) {
    throw new SvcError(
      'usage',
      'secret_file_exists',
      `${flag} ${path} exists: it may hold the only copy of another key's secret`,
      `give a path where no file is, or add --force to replace it (what it holds is kept in ${path}.old)`,
    );
  }
  const aside = `${path}.old`;
  const previous = await readFile(path, 'utf8');
  // A copy an earlier run left is replaced only when it is the same: a retry after a failure.
  const keptBefore = await readFile(aside, 'utf8').catch(() => undefined);
  if (keptBefore !== undefined && keptBefore !== previous) {
    throw new SvcError(
      'usage',
      'secret_file_old_exists',
      `${aside} exists and holds something else than ${path}: there is nowhere to keep what ${path} holds`,
      `move or delete ${aside} first, once nothing needs the secret it holds`,
    );
  }
  await assertSecretFileWritable(path, flag);
  await writeSecretFile(aside, previous);
  return aside;
}
