// An esbuild plugin that takes out of oclif's start-up the work that svc's calls pay for and do not
// use, without changing what oclif does with the answer. Each rewrite names the text it replaces: a
// version of @oclif/core without it fails the build, so that nothing is silently left unbundled.
// Measured by `npm run bench:startup` and test/bench/startup-phases.js (docs/development.md, Start-up).
import { readFile } from 'node:fs/promises';

/** Source rewrites, by file of @oclif/core's lib/: what each replaces and with what. */
const rewrites = {
  // Sorting the manifest's commands with localeCompare builds ICU's collator, 5 to 10 ms of every
  // call. For ids of lower-case letters, `-` and `:` (all of svc's and its plugins') ICU's order is
  // the order of their code units; any other id is compared as before.
  'config/plugin.js': [
    '.sort((a, b) => a.id.localeCompare(b.id));',
    '.sort((a, b) => (/^[a-z:-]*$/.test(a.id) && /^[a-z:-]*$/.test(b.id) ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.id.localeCompare(b.id)));',
  ],
  // Help passes every line it prints through EJS, which compiles each into a function: a text
  // without EJS's delimiters comes out of it unchanged, so only a text with one goes through it.
  'help/util.js': [
    'return ejs_1.default.render(t, context);',
    "return typeof t === 'string' && !t.includes('<%') && !t.includes('%>') ? t : ejs_1.default.render(t, context);",
  ],
};

/**
 * oclif asks wsl-utils whether it runs under WSL (its platform, shown in help) and, on Windows, where
 * PowerShell is. Loading wsl-utils (is-wsl, is-docker, powershell-utils, each importing Node's modules
 * as ES modules) costs some 6 ms. This module reads what is-wsl starts from, and loads wsl-utils to
 * decide only where that names WSL.
 */
const wslUtils = `
import { existsSync, readFileSync } from 'node:fs';
import { release } from 'node:os';

function mayBeWsl() {
  if (process.platform !== 'linux') return false;
  if (release().toLowerCase().includes('microsoft')) return true;
  try {
    if (readFileSync('/proc/version', 'utf8').toLowerCase().includes('microsoft')) return true;
  } catch {}
  return existsSync('/proc/sys/fs/binfmt_misc/WSLInterop') || existsSync('/run/WSL');
}

const wslUtils = mayBeWsl() ? await import('wsl-utils') : undefined;
export const isWsl = wslUtils?.isWsl ?? false;
export const powerShellPath = async () => (wslUtils ?? (await import('wsl-utils'))).powerShellPath();
`;

/** The esbuild plugin: the rewrites above, and wsl-utils as @oclif/core imports it replaced by the module above. */
export function oclifStartUp(root) {
  return {
    name: 'oclif-start-up',
    setup(build) {
      build.onResolve({ filter: /^wsl-utils$/ }, (args) =>
        /node_modules\/@oclif\/core\/lib\//.test(args.importer) ? { path: 'wsl-utils', namespace: 'oclif-start-up' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'oclif-start-up' }, () => ({ contents: wslUtils, loader: 'js', resolveDir: root }));
      build.onLoad({ filter: /node_modules\/@oclif\/core\/lib\/(config\/plugin|help\/util)\.js$/ }, async (args) => {
        const [from, to] = rewrites[args.path.replace(/.*\/@oclif\/core\/lib\//, '')];
        const source = await readFile(args.path, 'utf8');
        if (source.split(from).length !== 2) throw new Error(`${args.path} no longer holds, once, the text the build rewrites: ${from}`);
        return { contents: source.replace(from, () => to), loader: 'js' };
      });
    },
  };
}
