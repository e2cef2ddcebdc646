// Builds dist/ as shipped: each command and each script started on its own (bin's entry, workers, the
// Pact child, the GitHub Action's script) becomes one ES module, bundled with what it imports, code
// shared between them split into chunks. Start-up then reads a few files instead of resolving hundreds
// of modules. Type checking is `npm run typecheck`'s; this only transpiles.
// `svc --version` names the build: the commit and the date go into dist/build.json (the date from
// SOURCE_DATE_EPOCH when set, for a reproducible build).
// Usage: node scripts/build.js
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild-wasm';
import { oclifStartUp } from './oclif-start-up.js';
import { thirdPartyNotices } from './third-party-notices.js';

const root = new URL('..', import.meta.url);
const commands = readdirSync(new URL('src/commands', root), { recursive: true })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => `src/commands/${file}`);
/** Modules loaded by path at run time, by svc itself or by its tests and benchmarks. */
const scripts = [
  'src/cli/run.ts',
  'src/cli/not-found.ts',
  'src/ci/github-action.ts',
  'src/sandbox/document-check-worker.ts',
  'src/webhooks/intake-worker.ts',
  'src/conformance/pact-child.ts',
  'src/keys/file-journal.ts',
  'src/webhooks/samples.ts',
  'src/webhooks/signature.ts',
  'src/webhooks/sqlite-store.ts',
  'src/webhooks/verify.ts',
];

// Bundled CommonJS (oclif and others) calls require and reads __filename and __dirname, which ES modules lack.
const banner = [
  "import { createRequire as createRequireOfBundle } from 'node:module';",
  "import { fileURLToPath as fileURLToPathOfBundle } from 'node:url';",
  'const require = createRequireOfBundle(import.meta.url);',
  'const __filename = fileURLToPathOfBundle(import.meta.url);',
  "const __dirname = fileURLToPathOfBundle(new URL('.', import.meta.url));",
].join(' ');

rmSync(new URL('dist', root), { recursive: true, force: true });
const { outputFiles, metafile } = await build({
  absWorkingDir: new URL('.', root).pathname,
  entryPoints: [...scripts, ...commands],
  outdir: 'dist',
  outbase: 'src',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  sourcemap: true,
  // Native or file-reading packages stay in node_modules (Pact's native core, unpdf); typescript is only oclif's
  // optional development mode. Pact's JavaScript is bundled: its dependency @scarf/scarf, whose install script
  // reports the install to Scarf, is then no dependency of svc's package, however npm installs it.
  external: ['@pact-foundation/pact-core', 'unpdf', 'typescript'],
  banner: { js: banner },
  plugins: [oclifStartUp(new URL('.', root).pathname)],
  logLevel: 'warning',
  metafile: true,
  write: false,
});
// A file that uses none of them goes without: a call loads some 35 files, and each one's
// createRequire costs a tenth of a millisecond. Its line stays, empty, so that the source maps hold.
for (const file of outputFiles) {
  const unused = file.path.endsWith('.js') && file.text.startsWith(banner) && !/\b(require|__filename|__dirname)\b/.test(file.text.slice(banner.length));
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, unused ? file.text.slice(banner.length) : file.contents);
}

writeFileSync(new URL('dist/THIRD-PARTY-NOTICES.txt', root), thirdPartyNotices(new URL('.', root).pathname, metafile));

const git = (...args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
const head = git('rev-parse', '--short=12', 'HEAD');
// Outside a git checkout (a source archive) there is no commit to name.
const commit = head.status === 0 ? `${head.stdout.trim()}${git('status', '--porcelain', '--untracked-files=no').stdout.trim() ? '-modified' : ''}` : 'unknown';
const date = process.env.SOURCE_DATE_EPOCH ? new Date(Number(process.env.SOURCE_DATE_EPOCH) * 1000) : new Date();
writeFileSync(new URL('dist/build.json', root), `${JSON.stringify({ commit, date: date.toISOString() })}\n`);
