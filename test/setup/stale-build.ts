import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time of the files under `dir`, 0 when there are none. */
function newestUnder(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs),
  );
}

/**
 * Whether the build in `root`/dist is older than what it is built from: a source file, or the
 * package's manifest, changed after `dist/build.json` was written (or there is no build).
 */
export function buildIsStale(root: string): boolean {
  let built: number;
  try {
    built = statSync(join(root, 'dist', 'build.json')).mtimeMs;
  } catch {
    return true;
  }
  return Math.max(newestUnder(join(root, 'src')), statSync(join(root, 'package.json')).mtimeMs) > built;
}
