import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The repository's files as a fresh checkout has them, into `directory`: what git tracks, and what it
 * would track of the work not yet committed, without node_modules, dist/ or anything else it ignores.
 * With `commit`, a git repository of its own with those files committed on `branch`.
 */
export function checkoutCopy(directory: string, commit?: { branch: string }): string {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && existsSync(join(ROOT, file)));
  for (const file of files) {
    mkdirSync(dirname(join(directory, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(directory, file));
  }
  if (commit) {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: directory, stdio: 'ignore' });
    git('init', '--quiet', '--initial-branch', commit.branch);
    git('add', '--all');
    git('-c', 'user.name=svc tests', '-c', 'user.email=tests@svc.invalid', 'commit', '--quiet', '--message', 'The checkout under test');
  }
  return directory;
}
