/**
 * The binary tests run dist/, which nothing else rebuilds: after an edit of src/, a test file run
 * alone would test the old code. Built here when src/ is newer than the build (`npm test` has just
 * built, so it is not built twice).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildIsStale } from './stale-build.js';

export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  if (!buildIsStale(root)) return;
  process.stderr.write('dist/ is older than src/: building it first (npm run build)\n');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}
