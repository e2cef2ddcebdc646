// Throughput and p99 latency of `svc webhooks listen` (verify + store before the 200), next to a bare
// Node HTTP server that only answers 200 and to the least a verifying, storing receiver does
// (single-thread-receiver.js), with the same sender (its own process) in the same run, and the CPU
// time each server's threads spend per request (Linux: /proc). After each listen run the listener
// is killed with SIGKILL and the store is read back: every acknowledged event must be in it.
// Then the fleet: one, two and three listeners sharing one PostgreSQL (a throwaway cluster with
// fsync on, on this machine's Unix socket), the sender's connections spread over them, each run
// killed with SIGKILL and checked in the same way.
// Needs `npm run build` first, and PostgreSQL's server binaries (see scripts/test-prerequisites.js).
// Usage: npm run bench:webhooks [-- --count 100000 --connections 64 --rounds 3]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchHome } from './home.js';
import { startCluster } from './postgres.js';

const { values } = parseArgs({
  options: { count: { type: 'string', default: '100000' }, connections: { type: 'string', default: '64' }, rounds: { type: 'string', default: '3' } },
});
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const secret = `whsec_${'b'.repeat(32)}`;
const { home, env } = benchHome('svc-bench-', { SVC_WEBHOOK_SECRET: secret });

function firstLine(child) {
  return Promise.race([
    new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve)),
    new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`exited ${code}`)))),
  ]);
}

const WARMUP = 5000;
const clockTicksPerSecond = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** CPU ticks (user + system) so far of each thread of a process, by thread name; empty where /proc is not there. */
function threadTicks(pid) {
  const ticks = new Map();
  const tasks = `/proc/${pid}/task`;
  if (!existsSync(tasks)) return ticks;
  for (const tid of readdirSync(tasks)) {
    try {
      const name = readFileSync(`${tasks}/${tid}/comm`, 'utf8').trim();
      const fields = readFileSync(`${tasks}/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks.set(name, (ticks.get(name) ?? 0) + Number(fields[11]) + Number(fields[12]));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return ticks;
}

/** Sends the events to `url`, served by process `pid`, and measures that process's CPU per request, by thread, warm-up included. */
function send(url, ackedFile, pid) {
  const before = threadTicks(pid);
  const result = spawnSync(process.execPath, [here('webhook-sender.js'), url, values.count, values.connections, ackedFile, String(WARMUP)], {
    env,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(result.stderr);
  const requests = Number(values.count) + WARMUP;
  const perRequest = [...threadTicks(pid)].map(([name, ticks]) => [name, ((ticks - (before.get(name) ?? 0)) / clockTicksPerSecond / requests) * 1e6]);
  return { ...JSON.parse(result.stdout), cpu: Object.fromEntries(perRequest.filter(([, micros]) => micros >= 0.5)) };
}

const cpuLine = (cpu) => {
  const total = Object.values(cpu).reduce((sum, micros) => sum + micros, 0);
  return `${total.toFixed(1)} µs (${Object.entries(cpu)
    .map(([name, micros]) => `${name} ${micros.toFixed(1)}`)
    .join(', ')})`;
};

/** Runs a baseline server script (it prints its port) and sends it the events. */
async function baseline(script, ...args) {
  const child = spawn(process.execPath, [here(script), ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = Number(await firstLine(child));
  try {
    return send(`http://127.0.0.1:${port}/hooks`, join(home, 'acked-baseline'), child.pid);
  } finally {
    child.kill('SIGTERM');
  }
}

/** Starts one `svc webhooks listen` on `store`, its lines to a file; resolves with the process and its URL. */
async function startListen(store, output) {
  const child = spawn(process.execPath, [here('../../bin/run.js'), 'webhooks', 'listen', '--port', '0', '--json'], {
    // The connection string by the environment, as a deployment gives it: not in the process list.
    env: { ...env, SVC_WEBHOOK_STORE: store },
    stdio: ['ignore', openSync(output, 'w'), 'inherit'],
  });
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [line] = readFileSync(output, 'utf8').split('\n');
    if (line) return { child, url: JSON.parse(line).url };
    if (child.exitCode !== null) throw new Error(`listen exited ${child.exitCode}`);
  }
}

async function kill(child) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function listen(round) {
  const store = join(home, `events-${round}.db`);
  const acked = join(home, `acked-${round}`);
  // Its lines go to a file, as when an operator redirects them, so that no reader shares the cores.
  const { child, url } = await startListen(store, join(home, `listen-${round}.jsonl`));
  const result = send(`${url}/hooks`, acked, child.pid);
  await kill(child);
  const ids = readFileSync(acked, 'utf8').split('\n').filter(Boolean);
  result.acknowledgedInAll = ids.length;
  const db = new DatabaseSync(store, { readOnly: true });
  const found = db.prepare("SELECT COUNT(*) AS n FROM events WHERE status = 'accepted' AND event_id = ?");
  result.durable = ids.filter((id) => found.get(id).n === 1).length;
  db.close();
  return result;
}

/** `size` listeners on one PostgreSQL schema of their own, sent the events together, then killed; CPU is the first replica's. */
async function fleet(cluster, size, round) {
  const schema = `fleet_${size}_${round}`;
  const acked = join(home, `acked-${schema}`);
  const replicas = [];
  for (let index = 0; index < size; index++) replicas.push(await startListen(cluster.url(schema), join(home, `${schema}-${index}.jsonl`)));
  const result = send(replicas.map((replica) => `${replica.url}/hooks`).join(','), acked, replicas[0].child.pid);
  await Promise.all(replicas.map((replica) => kill(replica.child)));
  const ids = readFileSync(acked, 'utf8').split('\n').filter(Boolean);
  const stored = new Set(cluster.psql(`SELECT event_id FROM ${schema}.events WHERE status = 'accepted'`).split('\n'));
  result.acknowledgedInAll = ids.length;
  result.durable = ids.filter((id) => stored.has(id)).length;
  return result;
}

try {
  const runs = { bare: [], singleThread: [], listen: [], fleet1: [], fleet2: [], fleet3: [] };
  const cluster = startCluster();
  try {
    for (let round = 0; round < Number(values.rounds); round++) {
      runs.bare.push(await baseline('bare-http.js'));
      runs.singleThread.push(await baseline('single-thread-receiver.js', join(home, `single-thread-${round}.db`)));
      runs.listen.push(await listen(round));
      for (const size of [1, 2, 3]) runs[`fleet${size}`].push(await fleet(cluster, size, round));
    }
  } finally {
    cluster.destroy();
  }
  const best = (list) => list.reduce((a, b) => (b.rate > a.rate ? b : a));
  const [b, s, l] = [best(runs.bare), best(runs.singleThread), best(runs.listen)];
  const cores = spawnSync('nproc', { encoding: 'utf8' }).stdout.trim();
  console.log(
    `POST of signed report.completed events, ${values.count} per run, ${values.connections} keep-alive connections, best of ${values.rounds} (Node ${process.version}, ${cores} cores)`,
  );
  const row = (name, run, unit) =>
    console.log(`${name.padEnd(30)} ${String(run.rate).padStart(6)} ${unit}  p50 ${run.p50_ms} ms  p99 ${run.p99_ms} ms  errors ${run.errors}`);
  row('bare HTTP 200', b, 'req/s   ');
  row('verify + store on one thread', s, 'events/s');
  row('svc webhooks listen', l, 'events/s');
  const fleets = [1, 2, 3].map((size) => best(runs[`fleet${size}`]));
  for (const [index, run] of fleets.entries()) row(`${index + 1} on one PostgreSQL`, run, 'events/s');
  console.log(`ratio: listen ${(l.rate / b.rate).toFixed(2)} of the bare server (target ≥ 0.50); one-thread verify + store ${(s.rate / b.rate).toFixed(2)}`);
  if (Object.keys(b.cpu).length > 0) {
    console.log('server CPU per request, by thread (best runs, warm-up included):');
    console.log(`  bare HTTP 200                 ${cpuLine(b.cpu)}`);
    console.log(`  verify + store on one thread  ${cpuLine(s.cpu)}`);
    console.log(`  svc webhooks listen           ${cpuLine(l.cpu)}`);
  }
  const checked = [['SQLite', runs.listen], ...[1, 2, 3].map((size) => [`${size} on PostgreSQL`, runs[`fleet${size}`]])];
  for (const [name, list] of checked) {
    for (const [round, run] of list.entries()) {
      console.log(
        `durability, ${name}, run ${round + 1}: ${run.durable} of ${run.acknowledgedInAll} acknowledged events (warm-up included) in the store after kill -9${run.durable === run.acknowledgedInAll ? '' : '  LOST EVENTS'}`,
      );
    }
  }
  if (checked.some(([, list]) => list.some((run) => run.durable !== run.acknowledgedInAll))) process.exitCode = 1;
} finally {
  rmSync(home, { recursive: true, force: true });
}
