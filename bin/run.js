#!/usr/bin/env node
// Plain syntax, so that an older Node reaches the version check below.
const version = process.versions.node.split('.').map(Number);
if (version[0] < 22 || (version[0] === 22 && version[1] < 19)) {
  process.stderr.write(
    'svc needs Node.js 22.19 or newer; this is Node ' + process.versions.node + '.\n' +
    'Install a current Node.js (https://nodejs.org), or run svc through npm (npx svc), which uses the Node 24 the project pins.\n'
  );
  process.exit(1);
}

const { enableCompileCache } = await import('node:module');
enableCompileCache?.();

// Scripts call `svc --version` to probe for svc: answer it as oclif would, without loading oclif.
if (process.argv.length === 3 && process.argv[2] === '--version') {
  const { readFileSync } = await import('node:fs');
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`svc/${version} ${process.platform}-${process.arch} node-${process.version}\n`);
} else {
  // The check above replaces oclif's own engine check, which costs a sixth of start-up.
  process.env.OCLIF_DISABLE_ENGINE_WARNING = '1';
  const { execute } = await import('../dist/run.js');
  delete process.env.OCLIF_DISABLE_ENGINE_WARNING;
  await execute({ dir: import.meta.url });
}
