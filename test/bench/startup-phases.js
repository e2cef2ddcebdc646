// Where the time of one svc call goes, phase by phase: `svc --help` and `svc reports get <id> --json`
// against the embedded sandbox, each run with startup-phases-preload.js, which reads oclif's own
// performance marks. Medians of the rounds, wall and CPU time (user + system; on a machine other work
// shares, CPU time moves far less with it). Beside them, bench:startup's floors measured the same way:
// loading the bundled oclif entry (dist/cli/run.js) and nothing else, and that plus a node:https GET.
// Usage: node test/bench/startup-phases.js [--runs 21]
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchHome } from './home.js';
import { oclifLoaded, oclifLoadedAndHttpsGet } from './floors.js';
import { sandboxWithReport } from './sandbox-report.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '21' } } });
const runs = Math.max(5, Number(values.runs));
const bin = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const preload = new URL('startup-phases-preload.js', import.meta.url).href;
const { home, env } = benchHome('svc-bench-phases-');
const marksFile = join(home, 'marks.json');

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The marks of one call: name to { wall, cpu } in ms from the process's start. */
function marksOf(args, request) {
  const child = spawnSync(process.execPath, ['--import', preload, ...args], {
    env: { ...env, ...request, BENCH_PHASES_FILE: marksFile },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (child.status !== 0) throw new Error(`${args.join(' ')} exited ${child.status}: ${child.stderr}`);
  return JSON.parse(readFileSync(marksFile, 'utf8'));
}

/** Phases as [name, from mark, to mark] (undefined: the process's start), of every call and of help's or the command's. */
const startPhases = [
  ["Node's start, to the first module", undefined, 'preload'],
  ['bin/run.js, loading dist/cli/run.js (oclif)', 'preload', 'main.run-start'],
  ['oclif Config.load: root plugin and its manifest', 'plugin.load#root-start', 'plugin.load#root-stop'],
  ['oclif Config.load: platform, shell, theme', 'plugin.load#root-stop', 'config.loadAllPlugins-start'],
  ["oclif Config.load: plugins (help's and autocomplete's)", 'config.loadAllPlugins-start', 'config.loadAllPlugins-stop'],
  ['oclif Config.load: commands and topics', 'config.loadAllCommands-start', 'config.loadAllCommands-stop'],
];
const helpPhases = [['help, rendered and written', 'config.runHook#init-stop', 'config.runHook#finally-start']];
const commandPhases = [
  ['the command loaded (its module and chunks)', 'plugin.findCommand#visa-report-svc.reports:get-start', 'plugin.findCommand#visa-report-svc.reports:get-stop'],
  ['the command run (flags, profile, key, request, output)', 'plugin.findCommand#visa-report-svc.reports:get-stop', 'config.runHook#postrun-stop'],
];
const endPhases = [
  ['after oclif, to exit', 'main.run-stop', 'exit'],
  ['whole call', undefined, 'exit'],
];

function report(title, phases, calls, floor) {
  console.log(`\n${title}`);
  console.log(`${'phase'.padEnd(58)} ${'wall ms'.padStart(8)} ${'CPU ms'.padStart(8)}`);
  for (const [name, from, to] of phases) {
    const spans = calls.filter((marks) => marks[to] && (from === undefined || marks[from]));
    if (spans.length === 0) continue;
    const span = (kind) => median(spans.map((marks) => marks[to][kind] - (from === undefined ? 0 : marks[from][kind])));
    console.log(`${name.padEnd(58)} ${span('wall').toFixed(1).padStart(8)} ${span('cpu').toFixed(1).padStart(8)}`);
  }
  const whole = (kind) => median(calls.map((marks) => marks.exit[kind]));
  console.log(`${'the floor, as measured here'.padEnd(58)} ${floor.wall.toFixed(1).padStart(8)} ${floor.cpu.toFixed(1).padStart(8)}`);
  console.log(`${'× the floor'.padEnd(58)} ${(whole('wall') / floor.wall).toFixed(2).padStart(7)}× ${(whole('cpu') / floor.cpu).toFixed(2).padStart(7)}×`);
}

const { ready, report: sandboxReport, key, stop } = await sandboxWithReport(bin, env, join(home, 'sandbox'));
try {
  const calls = {
    floor: ['--input-type=module', '-e', oclifLoaded],
    floorWithRequest: ['--input-type=module', '-e', oclifLoadedAndHttpsGet],
    help: [bin, '--help'],
    get: [bin, 'reports', 'get', sandboxReport.id, '--json', '--profile', ready.profile],
  };
  const request = { BENCH_URL: `${ready.url}/v1/reports/${sandboxReport.id}`, BENCH_KEY: key, BENCH_CA: ready.ca_cert };
  const samples = Object.fromEntries(Object.keys(calls).map((name) => [name, []]));
  for (const args of Object.values(calls)) marksOf(args, request); // warm the file cache and Node's compile cache
  for (let round = 0; round < runs; round++) for (const [name, args] of Object.entries(calls)) samples[name].push(marksOf(args, request));
  const floorOf = (name) => ({ wall: median(samples[name].map((marks) => marks.exit.wall)), cpu: median(samples[name].map((marks) => marks.exit.cpu)) });
  console.log(`Node ${process.version}, median of ${runs} interleaved rounds, ms from the process's start; the sandbox at ${ready.url}`);
  report('svc --help (floor: oclif loaded)', [...startPhases, ...helpPhases, ...endPhases], samples.help, floorOf('floor'));
  report(
    'svc reports get <id> --json (floor: oclif loaded + node:https)',
    [...startPhases, ...commandPhases, ...endPhases],
    samples.get,
    floorOf('floorWithRequest'),
  );
} finally {
  await stop();
  rmSync(home, { recursive: true, force: true });
}
