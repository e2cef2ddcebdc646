import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { environmentWithoutSvc } from '../core/child-environment.js';
import { SvcError } from '../core/errors.js';

/**
 * Writes a page that holds personal data: to `output` when given, else into a new private directory
 * (0700) of the system's temporary one; the file is 0600 and written atomically either way.
 */
async function writePage(html: string, name: string, output?: string): Promise<string> {
  const path = output ?? join(await mkdtemp(join(tmpdir(), 'svc-report-')), name);
  try {
    await writeFileAtomic(path, html, { mode: 0o600 });
  } catch (error) {
    throw new SvcError(
      'invalidInput',
      'page_unwritable',
      `cannot write the page to ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      'give --output a file in a directory you can write to',
    );
  }
  return path;
}

function opener(platform: NodeJS.Platform): [string, ...string[]] {
  if (platform === 'darwin') return ['open'];
  // start takes its first quoted argument as a window title: an empty one, so that the path is the file.
  if (platform === 'win32') return ['cmd', '/c', 'start', ''];
  return ['xdg-open'];
}

/**
 * Hands a file to the system's opener (xdg-open, open, start), detached and silent, without svc's
 * variables; false when the system has none.
 */
function openWithSystem(path: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const [command, ...args] = opener(process.platform);
  return new Promise((resolve) => {
    const child = spawn(command, [...args, path], { detached: true, stdio: 'ignore', env: environmentWithoutSvc(env) });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

/** A page written: where, and whether the system's opener took it. */
export interface ShownPage {
  path: string;
  opened: boolean;
}

/** Writes an HTML page (see writePage) and opens it with the system's opener, started from `env` less svc's variables. */
export async function showPage(html: string, name: string, options: { output: string | undefined; env: NodeJS.ProcessEnv }): Promise<ShownPage> {
  const path = await writePage(html, name.replace(/[^\w.-]/g, '_'), options.output);
  return { path, opened: await openWithSystem(path, options.env) };
}

/** What happened to a page, in a line for people. */
export function shownPageLine({ path, opened }: ShownPage): string {
  return opened ? `Opened ${path}` : `Wrote ${path} (no ${opener(process.platform)[0]} here to open it: open it in a browser)`;
}
