// Builds svc's self-contained packages with oclif's packaging: a tarball for linux-x64 and a Debian
// package, each carrying the Node the project pins. That Node is the binary of the installed `node`
// devDependency, put where oclif looks before it would download one (tmp/cache/node-v<version>-linux-x64/),
// and oclif runs on it, so that the version it packs is that one. The package is svc's npm package as
// scripts/npm-package.js makes it from the dist/ already built (oclif's npm install follows its shrinkwrap);
// oclif writes into dist/, and what it made is moved to the output directory (packages/ by default), so
// that nothing of it ships in the npm package. The .deb leaves oclif uncompressed: it is compressed once,
// when its metadata is completed. Both are named by a version that sorts by the commit's time
// (scripts/package-version.js), where oclif names the commit alone. Both carry svc's own launcher in
// place of oclif's (LAUNCHER).
// Usage: node scripts/pack.js tarball|deb [--out DIR]   (npm run pack:tarball, npm run pack:deb build first)
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildVersion } from './package-version.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const [kind, ...rest] = process.argv.slice(2);
const outIndex = rest.indexOf('--out');
const out = outIndex >= 0 ? rest[outIndex + 1] : join(root, 'packages');
if (kind !== 'tarball' && kind !== 'deb') {
  console.error('Usage: node scripts/pack.js tarball|deb [--out DIR]');
  process.exit(2);
}

const found = (command) => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
// oclif's Debian packing runs dpkg-deb and apt-ftparchive, and sudo for chown even as root.
const missing = kind === 'deb' ? ['dpkg-deb', 'apt-ftparchive', 'sudo'].filter((command) => !found(command)) : [];
if (missing.length > 0) {
  console.error(`Packing the .deb needs ${missing.join(', ')}: apt-get install dpkg apt-utils sudo`);
  process.exit(1);
}

const pinnedNode = join(root, 'node_modules', 'node', 'bin', 'node');
if (!existsSync(pinnedNode)) {
  console.error('The pinned Node (the `node` devDependency) is not installed: run npm ci first.');
  process.exit(1);
}
const nodeVersion = execFileSync(pinnedNode, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
const cache = join(root, 'tmp', 'cache', `node-v${nodeVersion}-linux-x64`);
if (!existsSync(join(cache, 'node'))) {
  mkdirSync(cache, { recursive: true });
  try {
    linkSync(pinnedNode, join(cache, 'node'));
  } catch {
    copyFileSync(pinnedNode, join(cache, 'node'));
  }
}

/**
 * bin/svc: the Node the package carries runs svc's entry beside it, and nothing else. oclif's launcher
 * runs $XDG_DATA_HOME/svc/client/bin/svc instead when that file exists (its self-update, which svc does
 * not use) and prefers a Node at $XDG_DATA_HOME/oclif/node/node-custom: a file there would run as svc.
 * It also echoes the command line, keys included, under DEBUG=*. svc.cmd, for Windows, goes.
 */
const LAUNCHER = `#!/bin/sh
dir=$(dirname -- "$(readlink -f -- "$0")")
exec "$dir/node" "$dir/run.js" "$@"
`;

/** A package's bin/ directory, as oclif made it, with svc's launcher. */
function ownLauncher(bin) {
  writeFileSync(join(bin, 'svc'), LAUNCHER, { mode: 0o755 });
  rmSync(join(bin, 'svc.cmd'));
}

const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const [commitTime, commit] = execFileSync('git', ['log', '-1', '--format=%ct%n%h'], { cwd: root, encoding: 'utf8' }).trim().split('\n');
const version = buildVersion(pjson.version, new Date(Number(commitTime) * 1000), commit);

const work = mkdtempSync(join(tmpdir(), 'svc-pack-'));
const packed = execFileSync(process.execPath, [join(root, 'scripts', 'npm-package.js'), work], { encoding: 'utf8' }).trim();
const oclif = join(root, 'node_modules', 'oclif', 'bin', 'run.js');
const args =
  kind === 'tarball'
    ? ['pack', 'tarballs', '--targets', 'linux-x64', '--no-xz', '--tarball', packed]
    : ['pack', 'deb', '--compression', 'none', '--tarball', packed];
// oclif installs the package's dependencies with npm, which would run the package's own prepare (a build,
// with no sources in the package): scripts stay off, as they do for a user's install.
const env = { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', npm_config_ignore_scripts: 'true', npm_config_prefer_offline: 'true' };
execFileSync(pinnedNode, [oclif, ...args], { cwd: root, stdio: 'inherit', env });

mkdirSync(out, { recursive: true });
const dist = join(root, 'dist');
if (kind === 'tarball') {
  for (const file of readdirSync(dist).filter((name) => /^svc-v.*-linux-x64\.tar\.gz$/.test(name))) {
    const target = join(out, `svc-v${version}-linux-x64.tar.gz`);
    const tree = mkdtempSync(join(tmpdir(), 'svc-tarball-'));
    execFileSync('tar', ['-xzf', join(dist, file), '-C', tree]);
    ownLauncher(join(tree, 'svc', 'bin'));
    execFileSync('tar', ['-czf', target, '-C', tree, 'svc']);
    rmSync(join(dist, file));
    rmSync(tree, { recursive: true, force: true });
    console.log(target);
  }
} else {
  for (const file of readdirSync(join(dist, 'deb')).filter((name) => name.endsWith('.deb'))) {
    const target = join(out, `svc_${version}-1_amd64.deb`);
    completeMetadata(join(dist, 'deb', file), target);
    console.log(target);
  }
  rmSync(join(dist, 'deb'), { recursive: true, force: true });
}
rmSync(work, { recursive: true, force: true });
for (const workspace of ['svc', 'linux-x64', 'apt']) rmSync(join(root, 'tmp', workspace), { recursive: true, force: true });

/**
 * oclif's control file names the maintainer and describes the package, no more: give it the version
 * that sorts and a section, add the licence (Debian's copyright file), and drop the empty Aliases field
 * it writes. svc has no public home page to name.
 */
function completeMetadata(deb, target) {
  const tree = mkdtempSync(join(tmpdir(), 'svc-deb-'));
  execFileSync('dpkg-deb', ['--raw-extract', deb, tree]);
  const controlPath = join(tree, 'DEBIAN', 'control');
  const control = readFileSync(controlPath, 'utf8')
    .split('\n')
    .filter((line) => line && !/^Aliases: (undefined)?$/.test(line))
    .map((line) => (line.startsWith('Version: ') ? `Version: ${version}-1` : line === 'Section: main' ? 'Section: utils' : line));
  writeFileSync(controlPath, `${control.join('\n')}\n`);
  ownLauncher(join(tree, 'usr', 'lib', 'svc', 'bin'));
  const doc = join(tree, 'usr', 'share', 'doc', 'svc');
  mkdirSync(doc, { recursive: true });
  writeFileSync(
    join(doc, 'copyright'),
    [
      'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/',
      'Upstream-Name: svc',
      `Upstream-Contact: ${pjson.author}`,
      '',
      'Files: *',
      `Copyright: ${pjson.author}`,
      `License: ${pjson.license}`,
      '',
      'Files: usr/lib/svc/bin/node',
      'Copyright: Node.js contributors',
      'License: MIT',
      '',
    ].join('\n'),
  );
  execFileSync('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z6', '--build', tree, target], { stdio: ['ignore', 'ignore', 'inherit'] });
  rmSync(tree, { recursive: true, force: true });
}
