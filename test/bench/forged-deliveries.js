// What a flood of forged deliveries leaves on the disk of `svc webhooks listen`: --count deliveries
// of --size bytes each (10,000 of 1 MiB by default), every one signed with a wrong signature, sent
// over keep-alive connections. Prints the size of the store's files (database, WAL, shared memory)
// every tenth of the way with its growth since the previous tenth (none, once the limits on rejected
// deliveries and the WAL's checkpoint hold it), as a share of the bytes sent, and after the listener
// stops. The issue's bound: under 64 MiB, WAL included, while the listener runs.
// Needs `npm run build` first.
// Usage: npm run bench:forged-deliveries [-- --count 10000 --size 1048576 --connections 16]
import { spawn } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { benchHome } from './home.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '10000' },
    size: { type: 'string', default: String(1024 * 1024) },
    connections: { type: 'string', default: '16' },
  },
});
const count = Number(values.count);
const size = Number(values.size);
const MIB = 1024 * 1024;
const BOUND = 64 * MIB;
const { home, env } = benchHome('svc-bench-forged-', { SVC_WEBHOOK_SECRET: `whsec_${'b'.repeat(32)}` });
const store = join(home, 'events.db');

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

const storeFiles = () =>
  Object.fromEntries(['', '-wal', '-shm'].map((suffix) => [suffix || 'db', existsSync(store + suffix) ? statSync(store + suffix).size : 0]));
const total = (files) => Object.values(files).reduce((sum, bytes) => sum + bytes, 0);
const mib = (bytes) => `${(bytes / MIB).toFixed(1)} MiB`;
const line = (files) => `${mib(total(files))} (database ${mib(files.db)}, WAL ${mib(files['-wal'])}, shm ${mib(files['-shm'])})`;

const child = spawn(
  process.execPath,
  [fileURLToPath(new URL('../../bin/run.js', import.meta.url)), 'webhooks', 'listen', '--port', '0', '--json', '--store', store],
  { env, stdio: ['ignore', 'pipe', 'inherit'] },
);
const lines = createInterface({ input: child.stdout });
const ready = await new Promise((resolve, reject) => {
  lines.once('line', (text) => resolve(JSON.parse(text)));
  child.once('exit', (code) => reject(new Error(`listen exited ${code}`)));
});
let answered = 0;
lines.on('line', () => answered++);

try {
  const pool = new Pool(ready.url, { connections: Number(values.connections) });
  const statuses = new Map();
  const tenth = Math.max(1, Math.floor(count / 10));
  let next = 0;
  let previous = 0;
  const started = performance.now();
  console.log(
    `${count} forged deliveries of ${mib(size)} (${mib(count * size)} in all) to svc webhooks listen, ${values.connections} connections (Node ${process.version})`,
  );
  const sender = async () => {
    while (next < count) {
      const index = next++;
      const signature = `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`;
      const response = await pool.request({
        path: '/hooks',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-signature': signature },
        body: body(index),
      });
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
  await Promise.all(Array.from({ length: Number(values.connections) }, sender));
  const seconds = (performance.now() - started) / 1000;
  await pool.destroy();
  while (answered < count) await new Promise((resolve) => setTimeout(resolve, 20));
  const running = storeFiles();
  console.log(
    `answers: ${[...statuses].map(([status, n]) => `${n} × ${status}`).join(', ')}; ${(count / seconds).toFixed(0)} deliveries/s (${mib((count * size) / seconds)}/s)`,
  );
  console.log(
    `store while listening: ${line(running)}; ${((total(running) / (count * size)) * 100).toFixed(3)} % of the bytes sent; bound 64 MiB: ${total(running) < BOUND ? 'under' : 'OVER'}`,
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  const db = new DatabaseSync(store, { readOnly: true });
  const kept = db.prepare("SELECT COUNT(*) AS n, SUM(length(body)) AS bodies FROM events WHERE status = 'rejected'").get();
  db.close();
  console.log(`store after the listener stopped: ${line(storeFiles())}; ${kept.n} rejected deliveries kept, ${mib(kept.bodies ?? 0)} of bodies`);
  if (total(running) >= BOUND) process.exitCode = 1;
} finally {
  if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(home, { recursive: true, force: true });
}
