import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Worker, WorkerOptions } from 'node:worker_threads';

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

let version: string | undefined;

/** svc's version, as its package.json gives it. */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }).version;
  return version;
}

/** A script svc starts by path (a worker, a child process), by its path under src/ without extension: its built module, or its source when svc runs from its sources. */
export function ownScript(path: string): string {
  return FROM_SOURCES ? join(packageRoot(), 'src', `${path}.ts`) : join(packageRoot(), 'dist', `${path}.js`);
}

// From the TypeScript sources (as vitest runs them), Node compiles the worker's TypeScript (with the
// flags of ownWorker) but looks for the `.js` files its imports name: this resolves those to the
// `.ts` files beside them.
const WORKER_FROM_SOURCES = `
const { registerHooks } = require('node:module');
registerHooks({
  resolve(specifier, context, next) {
    try {
      return next(specifier, context);
    } catch (error) {
      if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !specifier.endsWith('.js') || !context.parentURL?.endsWith('.ts')) throw error;
      return next(specifier.slice(0, -3) + '.ts', context);
    }
  },
});
import(require('node:worker_threads').workerData.script);
`;

/** A worker thread running one of svc's scripts (`path` as ownScript takes it), from the build or from the sources. */
export function ownWorker(path: string, options: Omit<WorkerOptions, 'workerData'> & { workerData: unknown }): Worker {
  // Taken when a worker starts: an ES module import of node:worker_threads reads every export (1.2 ms),
  // and every request loads this module, for svc's version in its User-Agent.
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  const script = ownScript(path);
  if (!FROM_SOURCES) return new Worker(script, options);
  return new Worker(WORKER_FROM_SOURCES, {
    ...options,
    eval: true,
    workerData: { ...(options.workerData as Record<string, unknown>), script: pathToFileURL(script).href },
    execArgv: ['--experimental-transform-types', '--disable-warning=ExperimentalWarning'],
  });
}
