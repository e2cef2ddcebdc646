// What one svc call costs from start to exit, next to bare `node -e 0` on the same Node and to the
// least any client needs for the same request: curl, and 3-line Node scripts with node:https and fetch.
// Two floors of a CLI built on oclif are measured too: loading the @oclif/core svc ships (bundled,
// with Node's compile cache, as bin/run.js loads it) and nothing else, and that plus the node:https
// request: no oclif command can start faster here.
// Every command runs once per round, rounds interleaved, so that a busy moment of the machine falls on
// all of them alike; the figure is the median of the rounds. svc reports get runs against the embedded
// sandbox on 127.0.0.1, started here in its own process.
// With --cpu each figure is the CPU time (user + system) the call took, as bash's `times` reports it,
// instead of its wall time: on a machine that other work shares, it moves far less with that work.
// Where the time goes within a call: test/bench/startup-phases.js.
// Usage: npm run bench:startup [-- --runs 21] [--cpu]
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchHome } from './home.js';
import { oclifLoaded, oclifLoadedAndHttpsGet } from './floors.js';
import { sandboxWithReport } from './sandbox-report.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '21' }, cpu: { type: 'boolean', default: false } } });
const runs = Math.max(11, Number(values.runs));
const bin = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const launcher = fileURLToPath(new URL('../../svc', import.meta.url));
const { home, env } = benchHome('svc-bench-');
const dataDir = join(home, 'sandbox');

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const quoted = (arg) => `'${arg.replaceAll("'", `'\\''`)}'`;

/** The CPU time of bash's children, from the second line of `times` (`0m0.034s 0m0.015s`). */
function childrenCpuMs(times) {
  const [user, system] = times
    .trim()
    .split('\n')[1]
    .split(' ')
    .map((field) => {
      const [, minutes, seconds] = /^(\d+)m([\d.]+)s$/.exec(field);
      return (Number(minutes) * 60 + Number(seconds)) * 1000;
    });
  return user + system;
}

function once(command, args, extraEnv = {}) {
  const options = { env: { ...env, ...extraEnv }, stdio: ['ignore', values.cpu ? 'pipe' : 'ignore', 'pipe'], encoding: 'utf8' };
  const started = process.hrtime.bigint();
  const child = values.cpu
    ? spawnSync('bash', ['-c', `${[command, ...args].map(quoted).join(' ')} >/dev/null || exit; times`], options)
    : spawnSync(command, args, options);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (child.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${child.status}: ${child.stderr}`);
  return values.cpu ? childrenCpuMs(child.stdout) : ms;
}

const { ready, report, key, stop } = await sandboxWithReport(bin, env, dataDir);
try {
  const url = `${ready.url}/v1/reports/${report.id}`;
  // The key reaches the bare clients through their environment or a 0600 file, never their argv.
  const header = join(home, 'authorization');
  writeFileSync(header, `Authorization: Bearer ${key}\n`, { mode: 0o600 });
  const request = { BENCH_URL: url, BENCH_KEY: key, BENCH_CA: ready.ca_cert };
  const viaHttps = `const { get } = require('node:https'); const { readFileSync } = require('node:fs');
get(process.env.BENCH_URL, { ca: readFileSync(process.env.BENCH_CA), headers: { authorization: 'Bearer ' + process.env.BENCH_KEY } }, (r) => { r.resume(); r.on('end', () => process.exit(r.statusCode === 200 ? 0 : 1)); });`;
  const viaFetch = `const tls = require('node:tls'); tls.setDefaultCACertificates([...tls.getCACertificates('default'), require('node:fs').readFileSync(process.env.BENCH_CA, 'utf8')]);
fetch(process.env.BENCH_URL, { headers: { authorization: 'Bearer ' + process.env.BENCH_KEY } }).then(async (r) => { await r.text(); process.exit(r.ok ? 0 : 1); });`;
  const hasCurl = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;

  const commands = [
    { name: 'node -e 0', run: () => once(process.execPath, ['-e', '0']) },
    { name: 'svc --version', run: () => once(process.execPath, [bin, '--version']), target: 1.3 },
    { name: 'svc --help', run: () => once(process.execPath, [bin, '--help']), target: 2.0, floor: 'oclif loaded' },
    // The ways to run svc in a checkout, next to svc itself: the README's launcher, and npx.
    { name: './svc --help', run: () => once(launcher, ['--help']), over: { name: 'svc --help', targetMs: 100 } },
    { name: 'npx svc --help', run: () => once('npx', ['--no-install', 'svc', '--help']), over: { name: 'svc --help', targetMs: 100 } },
    { name: 'svc reports get --help', run: () => once(process.execPath, [bin, 'reports', 'get', '--help']), target: 2.0, floor: 'oclif loaded' },
    {
      name: 'svc reports get --json',
      run: () => once(process.execPath, [bin, 'reports', 'get', report.id, '--json', '--profile', ready.profile]),
      target: 2.5,
      floor: 'oclif loaded + node:https',
    },
    ...(hasCurl
      ? [{ name: 'curl, the same GET', run: () => once('curl', ['-sf', '-o', '/dev/null', '--cacert', ready.ca_cert, '-H', `@${header}`, url]) }]
      : []),
    { name: 'node:https, the same GET', run: () => once(process.execPath, ['-e', viaHttps], request) },
    { name: 'fetch, the same GET', run: () => once(process.execPath, ['-e', viaFetch], request) },
    { name: 'oclif loaded', run: () => once(process.execPath, ['--input-type=module', '-e', oclifLoaded]) },
    { name: 'oclif loaded + node:https', run: () => once(process.execPath, ['--input-type=module', '-e', oclifLoadedAndHttpsGet], request) },
  ];
  for (const command of commands) command.run(); // warm the file cache and Node's compile cache
  const samples = commands.map(() => []);
  for (let round = 0; round < runs; round++) commands.forEach((command, index) => samples[index].push(command.run()));

  const baseline = median(samples[0]);
  const width = Math.max(...commands.map((command) => command.name.length));
  console.log(
    `Node ${process.version}, ${spawnSync('nproc', { encoding: 'utf8' }).stdout.trim()} cores, median ${values.cpu ? 'CPU time (user + system)' : 'wall time'} of ${runs} interleaved rounds; svc reports get against the sandbox on 127.0.0.1`,
  );
  const ratioOf = (name) => median(samples[commands.findIndex((command) => command.name === name)]) / baseline;
  commands.forEach((command, index) => {
    const ms = median(samples[index]);
    const ratio = ms / baseline;
    const floor = command.floor === undefined ? '' : ` (floor, ${command.floor}: ${ratioOf(command.floor).toFixed(2)}×)`;
    const againstFloor = command.floor === undefined ? '' : `, ${(ratio / ratioOf(command.floor)).toFixed(2)}× the floor (target ≤ 1.2×)`;
    const verdict =
      command.target === undefined ? '' : `  target ≤ ${command.target.toFixed(1)}× ${ratio <= command.target ? 'met' : 'NOT met'}${floor}${againstFloor}`;
    const extra = command.over === undefined ? 0 : ms - median(samples[commands.findIndex((other) => other.name === command.over.name)]);
    const over =
      command.over === undefined
        ? ''
        : `  +${extra.toFixed(1)} ms over ${command.over.name} (target ≤ ${command.over.targetMs} ms ${extra <= command.over.targetMs ? 'met' : 'NOT met'})`;
    console.log(`${command.name.padEnd(width)}  ${ms.toFixed(1).padStart(7)} ms  ${ratio.toFixed(2)}× node -e 0${verdict}${over}`);
  });
} finally {
  await stop();
  rmSync(home, { recursive: true, force: true });
}
