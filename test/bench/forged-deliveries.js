// What a flood of forged deliveries costs `svc webhooks listen`, in two parts.
// Disk: --count deliveries of --size bytes each (10,000 of 1 MiB by default), every one signed with a
// wrong signature, sent over --connections keep-alive connections. Prints the size of the store's
// files (database, WAL, shared memory) every tenth of the way with its growth since the previous
// tenth (none, once the limits on rejected deliveries and the WAL's checkpoint hold it), as a share
// of the bytes sent, and after the listener stops. The issue's bound: under 64 MiB, WAL included,
// while the listener runs.
// Answers: --genuine signed events sent every --pace ms (paced-sender.js, a process of its own),
// after an untimed warm-up round (with flat forged bodies): alone (the baseline), then while --nested
// forged bodies of --size bytes arrive, spread evenly over the same time, each sent when due whether
// or not the earlier ones were answered: flat JSON, then nested arrays (`[[[…]]]`, the most a JSON
// parser can be made to do per byte). Prints the genuine events' answer times (median, p99, max) in
// each round with their ratios to the baseline, and checks they were all stored. The target: every
// one answered within the 10 s the service waits (part 6) while the nested ones arrive.
// Needs `npm run build` first.
// Usage: npm run bench:forged-deliveries [-- --count 10000 --size 1048576 --connections 16 --genuine 200 --pace 20 --nested 120]
import { spawn } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { benchHome } from './home.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '10000' },
    size: { type: 'string', default: String(1024 * 1024) },
    connections: { type: 'string', default: '16' },
    genuine: { type: 'string', default: '200' },
    pace: { type: 'string', default: '20' },
    nested: { type: 'string', default: '120' },
  },
});
const count = Number(values.count);
const size = Number(values.size);
const connections = Number(values.connections);
const MIB = 1024 * 1024;
const BOUND = 64 * MIB;
const ANSWER_WITHIN_MS = 10_000;
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const { home, env } = benchHome('svc-bench-forged-', { SVC_WEBHOOK_SECRET: `whsec_${'b'.repeat(32)}` });

/** A body of exactly `size` bytes whose id is written in place for each delivery. */
const ID_DIGITS = 8;
const head = `{"id":"evt_forged${'0'.repeat(ID_DIGITS)}","type":"report.completed","data":{"id":"rep_forged","padding":"`;
const tail = '"}}';
const template = Buffer.alloc(size, 'p');
template.write(head, 0);
template.write(tail, size - tail.length);
const idAt = head.indexOf('0'.repeat(ID_DIGITS));

function body(index) {
  const copy = Buffer.from(template);
  copy.write(String(index).padStart(ID_DIGITS, '0'), idAt);
  return copy;
}

/** Valid JSON of `size` bytes, arrays nested `size / 2` deep. */
const nested = Buffer.concat([Buffer.alloc(size / 2, '['), Buffer.alloc(size / 2, ']')]);

const forgedHeaders = () => ({ 'content-type': 'application/json', 'service-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` });

const mib = (bytes) => `${(bytes / MIB).toFixed(1)} MiB`;

/** The real `svc webhooks listen --json` on a free port; `answered` counts its delivery lines. */
async function startListen(store) {
  const child = spawn(process.execPath, [here('../../bin/run.js'), 'webhooks', 'listen', '--port', '0', '--json', '--store', store], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const ready = await new Promise((resolve, reject) => {
    lines.once('line', (text) => resolve(JSON.parse(text)));
    child.once('exit', (code) => reject(new Error(`listen exited ${code}`)));
  });
  const listener = { child, url: ready.url, answered: 0 };
  lines.on('line', () => listener.answered++);
  return listener;
}

async function stop(child) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function disk() {
  const store = join(home, 'events.db');
  const storeFiles = () =>
    Object.fromEntries(['', '-wal', '-shm'].map((suffix) => [suffix || 'db', existsSync(store + suffix) ? statSync(store + suffix).size : 0]));
  const total = (files) => Object.values(files).reduce((sum, bytes) => sum + bytes, 0);
  const line = (files) => `${mib(total(files))} (database ${mib(files.db)}, WAL ${mib(files['-wal'])}, shm ${mib(files['-shm'])})`;
  const listener = await startListen(store);
  try {
    const pool = new Pool(listener.url, { connections });
    const statuses = new Map();
    const tenth = Math.max(1, Math.floor(count / 10));
    let next = 0;
    let previous = 0;
    const started = performance.now();
    console.log(
      `${count} forged deliveries of ${mib(size)} (${mib(count * size)} in all) to svc webhooks listen, ${connections} connections (Node ${process.version})`,
    );
    const sender = async () => {
      while (next < count) {
        const index = next++;
        const response = await pool.request({ path: '/hooks', method: 'POST', headers: forgedHeaders(), body: body(index) });
        await response.body.dump();
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        const sent = index + 1;
        if (sent % tenth === 0) {
          const files = storeFiles();
          console.log(
            `after ${String(sent).padStart(String(count).length)}: store ${line(files)}, ${total(files) >= previous ? '+' : '-'}${mib(Math.abs(total(files) - previous))} since the previous tenth`,
          );
          previous = total(files);
        }
      }
    };
    await Promise.all(Array.from({ length: connections }, sender));
    const seconds = (performance.now() - started) / 1000;
    await pool.destroy();
    while (listener.answered < count) await new Promise((resolve) => setTimeout(resolve, 20));
    const running = storeFiles();
    console.log(
      `answers: ${[...statuses].map(([status, n]) => `${n} × ${status}`).join(', ')}; ${(count / seconds).toFixed(0)} deliveries/s (${mib((count * size) / seconds)}/s)`,
    );
    console.log(
      `store while listening: ${line(running)}; ${((total(running) / (count * size)) * 100).toFixed(3)} % of the bytes sent; bound 64 MiB: ${total(running) < BOUND ? 'under' : 'OVER'}`,
    );
    await stop(listener.child);
    const db = new DatabaseSync(store, { readOnly: true });
    const kept = db.prepare("SELECT COUNT(*) AS n, SUM(length(body)) AS bodies FROM events WHERE status = 'rejected'").get();
    db.close();
    console.log(`store after the listener stopped: ${line(storeFiles())}; ${kept.n} rejected deliveries kept, ${mib(kept.bodies ?? 0)} of bodies`);
    if (total(running) >= BOUND) process.exitCode = 1;
  } finally {
    if (listener.child.exitCode === null) listener.child.kill('SIGKILL');
  }
}

/** Runs paced-sender.js against the listener; its ids, statuses and answer times. */
function sendGenuine(url) {
  const child = spawn(process.execPath, [here('paced-sender.js'), `${url}/hooks`, values.genuine, values.pace], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`paced-sender.js exited ${code}`)))),
  );
}

function summary(latencies) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (quantile) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * quantile))];
  return { median: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] };
}

const counted = (statuses) =>
  [...Map.groupBy(statuses, (status) => status)]
    .sort(([a], [b]) => a - b)
    .map(([status, list]) => `${list.length} × ${status}`)
    .join(', ');

/**
 * Sends `bodies` forged deliveries of `bodyOf(index)` spread evenly over `spanMs`, each when due,
 * whether or not the earlier ones were answered, each on a connection of its own if need be; their statuses.
 */
async function sendForged(url, bodies, spanMs, bodyOf) {
  const pool = new Pool(url);
  const start = performance.now();
  const answers = [];
  for (let index = 0; index < bodies; index++) {
    await sleep(Math.max(0, start + (index * spanMs) / bodies - performance.now()));
    answers.push(
      pool.request({ path: '/hooks', method: 'POST', headers: forgedHeaders(), body: bodyOf(index) }).then(async (response) => {
        await response.body.dump();
        return response.statusCode;
      }),
    );
  }
  const statuses = await Promise.all(answers);
  await pool.close();
  return statuses;
}

async function answers() {
  const store = join(home, 'answers.db');
  const listener = await startListen(store);
  const genuine = Number(values.genuine);
  const forged = Number(values.nested);
  const spanMs = genuine * Number(values.pace);
  try {
    // Untimed: the first forged deliveries would find the listener's code for them cold.
    await Promise.all([sendGenuine(listener.url), sendForged(listener.url, forged, spanMs, body)]);
    const rounds = [['genuine alone (baseline)', await sendGenuine(listener.url), []]];
    for (const [label, bodyOf] of [
      ['flat', body],
      ['nested arrays', () => nested],
    ]) {
      const [sent, statuses] = await Promise.all([sendGenuine(listener.url), sendForged(listener.url, forged, spanMs, bodyOf)]);
      rounds.push([`genuine while ${forged} forged arrive, ${label}`, sent, statuses]);
    }
    await stop(listener.child);
    const db = new DatabaseSync(store, { readOnly: true });
    const accepted = db.prepare("SELECT COUNT(*) AS n FROM events WHERE status = 'accepted' AND event_id = ?");
    const ids = rounds.flatMap(([, sent]) => sent.ids);
    const stored = ids.filter((id) => accepted.get(id).n === 1).length;
    db.close();

    const ms = (value) => `${value.toFixed(1).padStart(8)} ms`;
    const baseline = summary(rounds[0][1].latencies);
    console.log(
      `${genuine} genuine report.completed events, one every ${values.pace} ms, to svc webhooks listen; over the same ${spanMs / 1000} s, ${forged} forged bodies of ${mib(size)}, flat JSON or nested arrays (Node ${process.version})`,
    );
    for (const [label, sent, statuses] of rounds) {
      const s = summary(sent.latencies);
      const ratio = (key) => `${(s[key] / baseline[key]).toFixed(1)}×`;
      console.log(
        `${label.padEnd(52)} median ${ms(s.median)}  p99 ${ms(s.p99)}  max ${ms(s.max)}  (${counted(sent.statuses)}${statuses.length ? `; forged: ${counted(statuses)}` : ''})`,
      );
      if (statuses.length)
        console.log(`${'  / baseline'.padEnd(52)} median ${ratio('median').padStart(11)}  p99 ${ratio('p99').padStart(11)}  max ${ratio('max').padStart(11)}`);
    }
    console.log(`genuine events stored as accepted: ${stored} of ${ids.length}`);
    const attacked = rounds.at(-1)[1];
    const met = summary(attacked.latencies).max < ANSWER_WITHIN_MS && attacked.statuses.every((status) => status === 200);
    console.log(`target: every genuine event answered 200 within ${ANSWER_WITHIN_MS / 1000} s while the nested ones arrive: ${met ? 'met' : 'NOT met'}`);
    if (!met || stored !== ids.length) process.exitCode = 1;
  } finally {
    if (listener.child.exitCode === null) listener.child.kill('SIGKILL');
  }
}

try {
  await disk();
  console.log();
  await answers();
} finally {
  rmSync(home, { recursive: true, force: true });
}
