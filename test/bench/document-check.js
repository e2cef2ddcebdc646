// Latency of other requests while the sandbox takes in and checks a crafted 10 MiB PDF (one object
// followed by `stream` lines, which a scan looking back from every stream needs an hour for), next to
// the same requests with the sandbox idle, in the same run. The requests (GET /v1/documents/:id of a
// document checked before, back to back on one keep-alive connection) come from a process of their
// own; a round lasts from the upload's start until the crafted document leaves `processing`.
// Usage: npm run bench:documents [-- --rounds 3]
import { fork, spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent } from 'undici';
import { benchHome } from './home.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const bin = here('../../bin/run.js');
const { home, env } = benchHome('svc-bench-');
const dataDir = join(home, 'sandbox');
const TARGET_MS = 100;
const now = () => performance.timeOrigin + performance.now();

function craftedPdf() {
  const header = '%PDF-1.7\n1 0 obj\n';
  return Buffer.from(header + 'stream\n'.repeat(Math.floor((10 * 1024 * 1024 - header.length) / 7)), 'latin1');
}

function summary(latencies) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (quantile) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * quantile))];
  return { count: sorted.length, median: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] };
}

const ms = (value) => `${value.toFixed(1).padStart(7)} ms`;
const row = (label, s) => `${label.padEnd(36)} n=${String(s.count).padStart(6)}  median ${ms(s.median)}  p99 ${ms(s.p99)}  max ${ms(s.max)}`;

const sandbox = spawn(
  process.execPath,
  [bin, 'sandbox', 'start', '--port', '0', '--json', '--quiet', '--plan', 'enterprise', '--analysis-delay', '0', '--data-dir', dataDir],
  {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const probe = fork(here('latency-probe.js'));
try {
  const ready = JSON.parse(
    await new Promise((resolve, reject) => {
      createInterface({ input: sandbox.stdout }).once('line', resolve);
      sandbox.once('exit', (code) => reject(new Error(`the sandbox exited ${code}`)));
    }),
  );
  const keys = JSON.parse(spawnSync(process.execPath, [bin, 'sandbox', 'keys', '--json', '--reveal', '--data-dir', dataDir], { env, encoding: 'utf8' }).stdout);
  const key = keys.find((item) => item.role === 'test').secret;
  const ca = readFileSync(ready.ca_cert, 'utf8');
  const dispatcher = new Agent({ connect: { ca } });
  const api = async (path, init = {}) => {
    const response = await fetch(`${ready.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}` }, dispatcher });
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path} answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
  const upload = (bytes) => {
    const form = new FormData();
    form.set('type', 'other');
    form.set('file', new Blob([bytes], { type: 'application/pdf' }), 'document.pdf');
    return api('/v1/documents', { method: 'POST', body: form });
  };
  const checked = async (id) => {
    for (;;) {
      const document = await api(`/v1/documents/${id}`);
      if (document.status !== 'processing') return document;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  const probed = await upload(Buffer.from('the document the latency probe reads\n'));
  await checked(probed.id);
  probe.send({ url: `${ready.url}/v1/documents/${probed.id}`, ca, key });
  await new Promise((resolve) => probe.once('message', resolve));

  const crafted = craftedPdf();
  const rounds = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    const start = now();
    const { id } = await upload(crafted);
    const uploaded = now();
    const document = await checked(id);
    rounds.push({ start, uploaded, end: now(), status: document.status, code: document.rejection?.code });
  }
  const busySeconds = rounds.reduce((total, round) => total + (round.end - round.start), 0) / 1000;
  const idleStart = now();
  await new Promise((resolve) => setTimeout(resolve, busySeconds * 1000));
  const idleEnd = now();
  probe.send('stop');
  const samples = await new Promise((resolve) => probe.once('message', resolve));

  const within = (start, end) => samples.filter(([at]) => at >= start && at <= end).map(([, took]) => took);
  const idle = summary(within(idleStart, idleEnd));
  const uploading = summary(rounds.flatMap((round) => within(round.start, round.uploaded)));
  const checking = summary(rounds.flatMap((round) => within(round.uploaded, round.end)));
  const cores = spawnSync('nproc', { encoding: 'utf8' }).stdout.trim();
  const ratio = (label, s) =>
    `${label.padEnd(36)}           median ${(s.median / idle.median).toFixed(2)}×  p99 ${(s.p99 / idle.p99).toFixed(2)}×  max ${(s.max / idle.max).toFixed(2)}×`;
  console.log(`GET /v1/documents/:id back to back on one keep-alive connection, from a process of its own (Node ${process.version}, ${cores} cores)`);
  console.log(row('sandbox idle (baseline)', idle));
  console.log(row('while the crafted PDF is checked', checking));
  console.log(row('while it is uploaded (until 201)', uploading));
  console.log(ratio('checked / idle', checking));
  console.log(ratio('uploaded / idle', uploading));
  const seconds = (from, to) => ((to - from) / 1000).toFixed(1);
  console.log(
    `rounds: ${rounds.map((round) => `upload ${seconds(round.start, round.uploaded)} s, check ${seconds(round.uploaded, round.end)} s, ${round.status}${round.code ? ` (${round.code})` : ''}`).join('; ')}`,
  );
  console.log(
    `target: every request answered within ${TARGET_MS} ms while the PDF is checked: ${checking.max < TARGET_MS ? 'met' : 'NOT met'} (max ${checking.max.toFixed(1)} ms)`,
  );
} finally {
  probe.kill();
  sandbox.kill('SIGTERM');
  await new Promise((resolve) => sandbox.once('exit', resolve));
  rmSync(home, { recursive: true, force: true });
}
