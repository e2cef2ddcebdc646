// Sandbox throughput for GET /v1/reports/:id (keep-alive, from a second process) next to a bare Node
// HTTPS server that only answers 200, with the same load generator in the same run; and the wall time
// of `svc reports get --json` against the sandbox next to `node -e 0`.
// Usage: npm run bench:sandbox [-- --seconds 5 --connections 16 --runs 20]
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent } from 'undici';
import { benchHome } from './home.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '16' }, runs: { type: 'string', default: '20' } },
});
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const bin = here('../../bin/run.js');
const { home, env } = benchHome('svc-bench-');
const dataDir = join(home, 'sandbox');

async function firstLine(child) {
  const [line] = await Promise.race([
    new Promise((resolve) => createInterface({ input: child.stdout }).once('line', (text) => resolve([text]))),
    new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`exited ${code}`)))),
  ]);
  return line;
}

function load(url, key) {
  const result = spawnSync(
    process.execPath,
    [here('load.js'), url, join(dataDir, 'tls', 'cert.pem'), values.seconds, values.connections, ...(key ? [key] : [])],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout);
}

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function wallTime(args) {
  spawnSync(process.execPath, args, { env });
  const samples = [];
  for (let run = 0; run < Number(values.runs); run++) {
    const started = process.hrtime.bigint();
    const child = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    if (child.status !== 0) throw new Error(`${args.join(' ')}: ${child.stderr}`);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(samples);
}

const sandbox = spawn(process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--json', '--quiet', '--plan', 'enterprise', '--data-dir', dataDir], {
  env,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const bare = { child: undefined };
try {
  const ready = JSON.parse(await firstLine(sandbox));
  const keys = JSON.parse(spawnSync(process.execPath, [bin, 'sandbox', 'keys', '--json', '--reveal', '--data-dir', dataDir], { env, encoding: 'utf8' }).stdout);
  const key = keys.find((item) => item.role === 'test').secret;
  const dispatcher = new Agent({ connect: { ca: readFileSync(ready.ca_cert, 'utf8') } });
  const post = async (path, body) =>
    (
      await fetch(`${ready.url}${path}`, {
        method: 'POST',
        dispatcher,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json();
  const applicant = await post('/v1/applicants', { given_names: 'Anna', surname: 'Eriksson', date_of_birth: '1984-08-12', nationality: 'SE' });
  const report = await post('/v1/reports', { applicant_id: applicant.id, destination: 'DE', visa_type: 'tourist', purpose: 'holiday' });

  bare.child = spawn(process.execPath, [here('bare-https.js'), join(dataDir, 'tls', 'cert.pem'), join(dataDir, 'tls', 'key.pem')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const barePort = Number(await firstLine(bare.child));
  const bareUrl = `https://127.0.0.1:${barePort}/v1/reports/${report.id}`;
  const sandboxUrl = `${ready.url}/v1/reports/${report.id}`;

  const runs = { bare: [], sandbox: [] };
  for (let round = 0; round < 2; round++) {
    runs.bare.push(load(bareUrl));
    runs.sandbox.push(load(sandboxUrl, key));
  }
  const best = (list) => list.reduce((a, b) => (b.rate > a.rate ? b : a));
  const [b, s] = [best(runs.bare), best(runs.sandbox)];
  console.log(
    `GET /v1/reports/:id, ${values.connections} keep-alive connections, ${values.seconds} s per run, best of 2 (Node ${process.version}, ${spawnSync('nproc', { encoding: 'utf8' }).stdout.trim()} cores)`,
  );
  console.log(`bare HTTPS 200   ${String(b.rate).padStart(7)} req/s  p50 ${b.p50_ms} ms  p99 ${b.p99_ms} ms  errors ${b.errors}`);
  console.log(`sandbox          ${String(s.rate).padStart(7)} req/s  p50 ${s.p50_ms} ms  p99 ${s.p99_ms} ms  errors ${s.errors}`);
  console.log(`ratio            ${(s.rate / b.rate).toFixed(2)} of the bare server (target ≥ 0.60)`);

  const node = wallTime(['-e', '0']);
  const get = wallTime([bin, 'reports', 'get', report.id, '--json', '--profile', ready.profile]);
  console.log(`node -e 0                  ${node.toFixed(1)} ms`);
  console.log(`svc reports get --json     ${get.toFixed(1)} ms  ${(get / node).toFixed(2)}× node -e 0 (median of ${values.runs})`);
} finally {
  bare.child?.kill('SIGTERM');
  sandbox.kill('SIGTERM');
  await new Promise((resolve) => sandbox.once('exit', resolve));
  rmSync(home, { recursive: true, force: true });
}
