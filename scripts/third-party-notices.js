// The notices of the packages whose code svc's bundles carry: most licences (MIT, ISC, BSD, Apache-2.0)
// ask that their text go with every copy, and dist/ is what svc ships. Read from esbuild's metafile.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The package an input of a bundle belongs to: the deepest node_modules/<name> or node_modules/@scope/<name> of its path. */
function packageDirOf(input) {
  return /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
}

/** The text of dist/THIRD-PARTY-NOTICES.txt for the inputs of `metafile`, paths relative to `rootDir`. */
export function thirdPartyNotices(rootDir, metafile) {
  const dirs = new Set(Object.keys(metafile.inputs).map(packageDirOf).filter(Boolean));
  const sections = [...dirs].map((dir) => {
    const { name, version, license } = JSON.parse(readFileSync(join(rootDir, dir, 'package.json'), 'utf8'));
    const file = readdirSync(join(rootDir, dir)).find((entry) => /^(licen[cs]e|copying|notice)(\.|-|$)/i.test(entry));
    const text = file
      ? readFileSync(join(rootDir, dir, file), 'utf8').trim()
      : `(the package has no licence file; its package.json names ${license ?? 'none'})`;
    return { heading: `${name} ${version} (${license ?? 'no licence named'})`, text };
  });
  const unique = new Map(sections.map((section) => [section.heading, section]));
  return (
    [
      'svc bundles code of the packages below into dist/. Their licences and notices follow, one section a package.',
      ...[...unique.values()].sort((a, b) => a.heading.localeCompare(b.heading, 'en')).map(({ heading, text }) => `${'='.repeat(78)}\n${heading}\n\n${text}`),
    ].join('\n\n') + '\n'
  );
}
