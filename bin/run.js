#!/usr/bin/env node
// Plain syntax, so that an older Node reaches the version check below.
const version = process.versions.node.split('.').map(Number);
if (version[0] < 22 || (version[0] === 22 && version[1] < 19)) {
  // What works depends on where svc is: a checkout carries the Node the project pins (the `node`
  // devDependency), which npm scripts and npx put first on PATH; an installed package does not.
  const { existsSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const root = new URL('..', import.meta.url);
  const advice = existsSync(new URL('node_modules/node/bin/node', root))
    ? 'In this checkout, run ' + fileURLToPath(new URL('svc', root)) + ', which runs svc on the Node 24 the project pins (npm ci installs it)'
    : 'Install Node.js 22.19 or newer (https://nodejs.org), or the self-contained build of svc, which carries its own Node: ' +
      'the linux-x64 tarball or the Debian package ("Installing" in ' +
      fileURLToPath(new URL('README.md', root)) +
      ').';
  process.stderr.write('svc needs Node.js 22.19 or newer; this is Node ' + process.versions.node + '.\n' + advice + '\n');
  process.exit(1);
}

// A reader that stops reading (`svc … | head`) ends svc quietly, as it ends git: the output is no longer wanted.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
const { existsSync, readFileSync } = await import('node:fs');
const { fileURLToPath } = await import('node:url');
const root = new URL('..', import.meta.url);
const pjson = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const args = process.argv.slice(2);

/**
 * Whether the arguments start with one of svc's own commands, by the file oclif would load for it
 * (dist/commands/<topic>/<command>.js, or index.js for a topic that is a command too).
 */
function namesOwnCommand() {
  const words = [];
  for (const arg of args.slice(0, 3)) {
    if (!/^[a-z][a-z0-9-]*$/.test(arg)) break;
    words.push(arg);
  }
  for (let length = words.length; length > 0; length--) {
    const path = `dist/commands/${words.slice(0, length).join('/')}`;
    if (existsSync(new URL(`${path}.js`, root)) || existsSync(new URL(`${path}/index.js`, root))) return true;
  }
  return false;
}

// Scripts call `svc --version` (or `svc version`, as gh and stripe take it) to probe for svc: answered
// as oclif would, without loading oclif, then the build's commit and date (scripts/build.js); with
// --json, as an object.
const asksVersion = (args[0] === '--version' || args[0] === 'version') && args.slice(1).every((arg) => arg === '--json');
if (asksVersion) {
  const build = JSON.parse(readFileSync(new URL('dist/build.json', root), 'utf8'));
  const version = { version: pjson.version, platform: process.platform, arch: process.arch, node: process.version, commit: build.commit, built: build.date };
  process.stdout.write(
    args.includes('--json')
      ? `${JSON.stringify(version, null, 2)}\n`
      : `svc/${version.version} ${version.platform}-${version.arch} node-${version.node} commit ${version.commit} built ${version.built}\n`,
  );
} else {
  // The check above replaces oclif's own engine check, which costs a sixth of start-up.
  process.env.OCLIF_DISABLE_ENGINE_WARNING = '1';
  // oclif's loggers print argv whole, keys and connection strings in clear: DEBUG enables none of
  // them (a `-` namespace wins over any other), before the `debug` package reads it as oclif loads.
  if (process.env.DEBUG) process.env.DEBUG += ',-oclif*';
  const { execute } = await import('../dist/cli/run.js');
  delete process.env.OCLIF_DISABLE_ENGINE_WARNING;
  // oclif's plugins (help, autocomplete, not-found) bring commands of their own and a hook for an
  // unknown command: one of svc's own commands needs none of them, only the time they take to load.
  const own = namesOwnCommand();
  const plugins = own ? [] : pjson.oclif.plugins;
  // oclif finds its plugins among the dependencies by matching each with minimatch (3 ms of a
  // profile of svc --help for all of svc's): it is given the plugins' alone.
  const dependencies = Object.fromEntries(plugins.map((name) => [name, pjson.dependencies[name]]));
  // oclif lays a flag's description out two columns past the width it is given: help is given two less.
  const helpOptions = process.stdout.isTTY && process.stdout.columns ? { maxWidth: Math.max(40, process.stdout.columns - 2) } : undefined;
  await execute({
    root: fileURLToPath(new URL('.', root)).replace(/\/$/, ''),
    pjson: { ...pjson, dependencies, oclif: { ...pjson.oclif, plugins, helpOptions } },
  });
}
