// Throughput and p99 latency of `svc webhooks listen` (verify + store before the 200), next to a bare
// Node HTTP server that only answers 200, with the same sender (its own process) in the same run.
// After each listen run the listener is killed with SIGKILL and the store is read back: every
// acknowledged event must be in it. Needs `npm run build` first.
// Usage: npm run bench:webhooks [-- --count 20000 --connections 64 --rounds 3]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { count: { type: 'string', default: '20000' }, connections: { type: 'string', default: '64' }, rounds: { type: 'string', default: '3' } } });
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const secret = `whsec_${'b'.repeat(32)}`;
const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data'), XDG_STATE_HOME: join(home, 'state'), NO_COLOR: '1', SVC_WEBHOOK_SECRET: secret };

function firstLine(child) {
  return Promise.race([
    new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve)),
    new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`exited ${code}`)))),
  ]);
}

function send(url, ackedFile) {
  const result = spawnSync(process.execPath, [here('webhook-sender.js'), url, values.count, values.connections, ackedFile], { env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout);
}

async function bare() {
  const child = spawn(process.execPath, [here('bare-http.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = Number(await firstLine(child));
  try {
    return send(`http://127.0.0.1:${port}/hooks`, join(home, 'acked-bare'));
  } finally {
    child.kill('SIGTERM');
  }
}

async function listen(round) {
  const store = join(home, `events-${round}.db`);
  const acked = join(home, `acked-${round}`);
  // Its lines go to a file, as when an operator redirects them, so that no reader shares the cores.
  const output = join(home, `listen-${round}.jsonl`);
  const child = spawn(process.execPath, [here('../../bin/run.js'), 'webhooks', 'listen', '--port', '0', '--json', '--store', store], { env, stdio: ['ignore', openSync(output, 'w'), 'inherit'] });
  let ready;
  while (!ready) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [line] = readFileSync(output, 'utf8').split('\n');
    if (line) ready = JSON.parse(line);
    if (child.exitCode !== null) throw new Error(`listen exited ${child.exitCode}`);
  }
  const result = send(`${ready.url}/hooks`, acked);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  const ids = readFileSync(acked, 'utf8').split('\n').filter(Boolean);
  result.acknowledgedInAll = ids.length;
  const db = new DatabaseSync(store, { readOnly: true });
  const found = db.prepare("SELECT COUNT(*) AS n FROM events WHERE status = 'accepted' AND event_id = ?");
  result.durable = ids.filter((id) => found.get(id).n === 1).length;
  db.close();
  return result;
}

try {
  const runs = { bare: [], listen: [] };
  for (let round = 0; round < Number(values.rounds); round++) {
    runs.bare.push(await bare());
    runs.listen.push(await listen(round));
  }
  const best = (list) => list.reduce((a, b) => (b.rate > a.rate ? b : a));
  const [b, l] = [best(runs.bare), best(runs.listen)];
  const cores = spawnSync('nproc', { encoding: 'utf8' }).stdout.trim();
  console.log(`POST of signed report.completed events, ${values.count} per run, ${values.connections} keep-alive connections, best of ${values.rounds} (Node ${process.version}, ${cores} cores)`);
  console.log(`bare HTTP 200      ${String(b.rate).padStart(7)} req/s     p50 ${b.p50_ms} ms  p99 ${b.p99_ms} ms  errors ${b.errors}`);
  console.log(`svc webhooks listen ${String(l.rate).padStart(6)} events/s  p50 ${l.p50_ms} ms  p99 ${l.p99_ms} ms  errors ${l.errors}`);
  console.log(`ratio              ${(l.rate / b.rate).toFixed(2)} of the bare server (target ≥ 0.50)`);
  for (const [round, run] of runs.listen.entries()) {
    console.log(`durability, run ${round + 1}: ${run.durable} of ${run.acknowledgedInAll} acknowledged events (warm-up included) in the store after kill -9${run.durable === run.acknowledgedInAll ? '' : '  LOST EVENTS'}`);
  }
  if (runs.listen.some((run) => run.durable !== run.acknowledgedInAll)) process.exitCode = 1;
} finally {
  rmSync(home, { recursive: true, force: true });
}
