// What a workspace's history costs the contract kit: `svc contract verify --fast` against sandboxes
// whose test workspace holds 0, 2,400 and 24,000 reports before the run, rounds interleaved, the
// median of each. The history is real: reports of the workspace, made from one the sandbox analysed
// (a copy per report, its own id, created one after another over the months before the run), written
// to the sandbox's own store, which the API lists from (newest first). Each sandbox runs the Pro plan
// (`--plan` another), so that requests cost what they cost a real workspace: the kit paces itself
// within 120 a minute. A run starts a minute after the last one against the same sandbox ended, as
// pipelines a push apart do, so that no run waits out the window of the run before it (not timed).
// Usage: npm run bench:kit-history [-- --rounds 5 --sizes 0,2400,24000 --plan pro --svc <path/to/bin/run.js>]
// Prints, per size, the run's wall time and the requests the kit sent (its run record's `requests`),
// each as a ratio to the empty workspace's, and the verdicts. The goal is at most 1.2.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { benchHome } from './home.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    sizes: { type: 'string', default: '0,2400,24000' },
    plan: { type: 'string', default: 'pro' },
    svc: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const sizes = values.sizes.split(',').map(Number);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds is a whole number of at least 1');
if (sizes.some((size) => !Number.isInteger(size) || size < 0)) throw new Error('--sizes are whole numbers, separated by commas');
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const ownBin = here('../../bin/run.js');
const kitBin = values.svc ?? ownBin;
const SECRET = 'whsec_kithistorybench0123456789abcdefghij';
/** The time between two reports of the history: 24,000 of them span some three months. */
const SPACING_MS = 5 * 60_000;
/** Part 8's window, and a second more: a run's requests no longer count against the next's once it has passed. */
const WINDOW_MS = 61_000;

async function firstLine(child) {
  return Promise.race([
    new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve)),
    new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`exited ${code}`)))),
  ]);
}

function freePort() {
  return new Promise((resolve) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function run(args, childEnv) {
  const child = spawn(process.execPath, args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (output.stderr += chunk));
  return new Promise((resolve) => child.once('exit', (status) => resolve({ ...output, status })));
}

const base62 = (length) => [...randomBytes(length)].map((byte) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[byte % 62]).join('');

/** A sandbox of its own (data directory, webhook port), its keys, and a client of its API with the test key. */
async function startSandbox(size) {
  const { home, env } = benchHome(`svc-bench-kit-history-${size}-`);
  const dataDir = join(home, 'sandbox');
  const webhookPort = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...[ownBin, 'sandbox', 'start', '--port', '0', '--json', '--quiet', '--plan', values.plan, '--data-dir', dataDir],
      ...['--webhook-url', `http://127.0.0.1:${webhookPort}/`],
    ],
    { env: { ...env, SVC_WEBHOOK_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const ready = JSON.parse(await firstLine(child));
  const listed = spawnSync(process.execPath, [ownBin, 'sandbox', 'keys', '--json', '--reveal', '--data-dir', dataDir], { env, encoding: 'utf8' });
  const keys = Object.fromEntries(JSON.parse(listed.stdout).map((key) => [key.role, key.secret]));
  const dispatcher = new Agent({ connect: { ca: readFileSync(ready.ca_cert, 'utf8') } });
  const api = async (method, path, body) => {
    const answer = await request(`${ready.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${keys.test}`, ...(body && { 'content-type': 'application/json' }) },
      body: body && JSON.stringify(body),
      dispatcher,
    });
    const text = await answer.body.text();
    if (answer.statusCode >= 300) throw new Error(`${method} ${path} answered ${answer.statusCode} ${text}`);
    return JSON.parse(text);
  };
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await dispatcher.close();
  };
  return { size, env, dataDir, webhookPort, ready, keys, api, stop, lastRunEnded: undefined };
}

/**
 * `size` reports of the test workspace, copies of one the sandbox made and analysed, each with an id
 * of its own and a creation time `SPACING_MS` after the one before, the last an hour before now;
 * written in creation order, so that the sandbox lists them as it lists any (newest first).
 */
async function seedHistory(sandbox) {
  if (sandbox.size === 0) return;
  const applicant = await sandbox.api('POST', '/v1/applicants', {
    given_names: 'Anna Maria',
    surname: 'Eriksson',
    date_of_birth: '1984-08-12',
    nationality: 'SE',
    passport_number: 'L898902C3',
    passport_expiry: '2039-08-11',
    occupation: 'Software engineer',
    employment_status: 'employed',
    monthly_income: 4800,
    savings: 21000,
    currency: 'EUR',
    travel_history: [{ country: 'US', year: 2019, overstayed: false }],
    previous_refusals: 0,
  });
  const made = await sandbox.api('POST', '/v1/reports', { applicant_id: applicant.id, destination: 'FR', visa_type: 'tourist', purpose: 'A week in Paris' });
  let template = made;
  while (template.status !== 'completed') {
    if (template.status === 'failed') throw new Error(`the template report failed: ${JSON.stringify(template)}`);
    await sleep(100);
    template = await sandbox.api('GET', `/v1/reports/${made.id}`);
  }
  await sandbox.api('DELETE', `/v1/reports/${made.id}`);
  const db = new DatabaseSync(join(sandbox.dataDir, 'sandbox.db'), { timeout: 5000 });
  try {
    const { workspace_id: workspaceId } = db.prepare("SELECT workspace_id FROM keys WHERE role = 'test'").get();
    const insert = db.prepare('INSERT INTO reports (id, workspace_id, applicant_id, status, body) VALUES (?, ?, ?, ?, ?)');
    const lastAt = Date.now() - 3_600_000;
    db.exec('BEGIN');
    for (let index = 0; index < sandbox.size; index++) {
      const createdAt = lastAt - (sandbox.size - 1 - index) * SPACING_MS;
      const report = {
        ...template,
        id: `rep_${base62(24)}`,
        created_at: new Date(createdAt).toISOString(),
        completed_at: new Date(createdAt + 2_000).toISOString(),
      };
      insert.run(report.id, workspaceId, report.applicant_id, report.status, JSON.stringify(report));
    }
    db.exec('COMMIT');
    const { count } = db.prepare('SELECT COUNT(*) AS count FROM reports WHERE workspace_id = ?').get(workspaceId);
    if (count !== sandbox.size) throw new Error(`the workspace holds ${count} reports, not ${sandbox.size}`);
  } finally {
    db.close();
  }
  // Listed by the API as any report of the workspace: its first page is the history's newest.
  const first = await sandbox.api('GET', '/v1/reports?limit=1');
  if (first.data[0]?.applicant_id !== applicant.id) throw new Error(`the API does not list the history: ${JSON.stringify(first)}`);
}

async function verify(sandbox) {
  const { keys } = sandbox;
  const kitEnv = {
    ...sandbox.env,
    SVC_API_KEY: keys.test,
    SVC_ADMIN_KEY: keys.admin,
    SVC_READ_ONLY_KEY: keys.read_only,
    SVC_IP_LOCKED_KEY: keys.ip_locked,
    SVC_OTHER_WORKSPACE_KEY: keys.other_workspace,
    SVC_OTHER_WORKSPACE_ADMIN_KEY: keys.other_workspace_admin,
    SVC_WEBHOOK_SECRET: SECRET,
  };
  if (values.plan !== 'enterprise' && sandbox.lastRunEnded !== undefined) await sleep(Math.max(0, sandbox.lastRunEnded + WINDOW_MS - Date.now()));
  const args = [
    ...[kitBin, 'contract', 'verify', '--fast', '--json', '--base-url', sandbox.ready.url],
    ...['--ca-cert', sandbox.ready.ca_cert, '--webhook-port', String(sandbox.webhookPort)],
  ];
  const started = performance.now();
  const kit = await run(args, kitEnv);
  const seconds = (performance.now() - started) / 1000;
  sandbox.lastRunEnded = Date.now();
  const result = kit.stdout ? JSON.parse(kit.stdout) : undefined;
  if (!result?.run) throw new Error(`the kit ended ${kit.status} without a verdict: ${kit.stderr.slice(-800)}`);
  const waits = kit.stderr.split('\n').filter((line) => /waiting \d+ s/.test(line)).length;
  return { seconds, requests: result.run.requests, result, waits };
}

const median = (numbers) => {
  const sorted = numbers.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const sandboxes = [];
try {
  for (const size of sizes) {
    const sandbox = await startSandbox(size);
    sandboxes.push(sandbox);
    const seeding = performance.now();
    await seedHistory(sandbox);
    console.error(`sandbox with ${size.toLocaleString('en')} reports ready (${((performance.now() - seeding) / 1000).toFixed(1)} s to seed)`);
  }
  const runs = new Map(sizes.map((size) => [size, []]));
  for (let round = 0; round < rounds; round++) {
    // Each round starts at another size, so that no size always runs first.
    const order = sandboxes.map((_, index) => sandboxes[(index + round) % sandboxes.length]);
    for (const sandbox of order) {
      const measured = await verify(sandbox);
      runs.get(sandbox.size).push(measured);
      const { result } = measured;
      console.error(
        `round ${round + 1}, ${sandbox.size.toLocaleString('en')} reports: ${measured.seconds.toFixed(1)} s, ${measured.requests} requests, ` +
          `${result.verdict} (${result.passed} passed, ${result.failed} failed, ${result.skipped} skipped, ${result.inconclusive} inconclusive)` +
          (measured.waits > 0 ? `, ${measured.waits} waits logged` : ''),
      );
      for (const check of result.checks)
        if (check.status === 'failed' || check.status === 'inconclusive') console.error(`  ${check.status} ${check.id}: ${check.detail.slice(0, 300)}`);
    }
  }
  console.log(`svc: ${kitBin}; --fast, ${values.plan} plan; ${rounds} rounds, interleaved; medians`);
  console.log('| reports in the workspace | wall time, s | × empty | requests | × empty | verdicts |');
  console.log('|---|---|---|---|---|---|');
  const baseline = runs.get(sizes[0]);
  const baseSeconds = median(baseline.map((item) => item.seconds));
  const baseRequests = median(baseline.map((item) => item.requests));
  for (const size of sizes) {
    const measured = runs.get(size);
    const seconds = median(measured.map((item) => item.seconds));
    const requests = median(measured.map((item) => item.requests));
    const verdicts = [...new Set(measured.map((item) => item.result.verdict))].join(', ');
    console.log(
      `| ${size.toLocaleString('en')} | ${seconds.toFixed(2)} | ${(seconds / baseSeconds).toFixed(2)} | ${requests} | ${(requests / baseRequests).toFixed(2)} | ${verdicts} |`,
    );
  }
} finally {
  for (const sandbox of sandboxes) await sandbox.stop();
}
