/**
 * dist/ carries the code of the packages it bundles, and so their notices: every package a bundle of dist/
 * holds (read here from the bundles, not from the build's metafile the notices are made from) has its
 * section in dist/THIRD-PARTY-NOTICES.txt, with its licence file's text.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = join(root, 'dist');

/**
 * The package directories, from the checkout's root, of every module the bundles of dist/ hold: esbuild
 * heads each module it bundles with a comment naming its path (`// node_modules/@oclif/core/lib/…`).
 */
function bundledPackages(): Set<string> {
  const packages = new Set<string>();
  for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.js'))) {
    for (const [, path] of readFileSync(join(dist, file), 'utf8').matchAll(/^\/\/ (node_modules\/\S+)$/gm)) {
      const at = path!.lastIndexOf('node_modules/');
      const [first, second] = path!.slice(at + 'node_modules/'.length).split('/');
      packages.add(join(root, path!.slice(0, at), 'node_modules', first!.startsWith('@') ? `${first}/${second}` : first!));
    }
  }
  return packages;
}

describe('dist/THIRD-PARTY-NOTICES.txt', () => {
  it("has a section for every bundled package, with its licence file's text", () => {
    const notices = readFileSync(join(dist, 'THIRD-PARTY-NOTICES.txt'), 'utf8');
    const packages = bundledPackages();
    expect(packages.size).toBeGreaterThan(50);
    for (const dir of packages) {
      const { name, version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string };
      expect(notices, name).toContain(`\n${name} ${version} (`);
      const licence = readdirSync(dir).find((entry) => /^licen[cs]e/i.test(entry));
      if (licence) expect(notices, name).toContain(readFileSync(join(dir, licence), 'utf8').trim());
    }
    expect(packages).toContain(join(root, 'node_modules/@oclif/core'));
  });

  it('goes into the npm package, with dist/', () => {
    const { files } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
    expect(files).toContain('dist');
    expect(existsSync(join(dist, 'THIRD-PARTY-NOTICES.txt'))).toBe(true);
  });
});
