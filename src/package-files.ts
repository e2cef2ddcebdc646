import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// svc runs from its TypeScript sources (src/, as the tests import them) or from its bundle (dist/,
// shared code in dist/chunks/): a module cannot know its own depth, so files of the package are
// found from its root, the nearest directory up that holds a package.json.
const FROM_SOURCES = import.meta.url.endsWith('.ts');
let root: string | undefined;

function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`svc's package.json was not found above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  root = dir;
  return root;
}

/** A file of the svc package, by its path from the package's root (`openapi.yaml`, `contracts/`). */
export function packageFile(path: string): string {
  return join(packageRoot(), path);
}

/** A script svc starts by path (a worker, a child process), by its path under src/ without extension: its built module, or its source when svc runs from its sources. */
export function ownScript(path: string): string {
  return FROM_SOURCES ? join(packageRoot(), 'src', `${path}.ts`) : join(packageRoot(), 'dist', `${path}.js`);
}

/** Whether svc runs from its TypeScript sources rather than its build. */
export function runsFromSources(): boolean {
  return FROM_SOURCES;
}
