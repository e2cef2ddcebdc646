// The run time of `svc contract verify --fast` against an implementation on the Free plan (part 8:
// 10 requests a minute), in real time: the sandbox behind an HTTPS front that keeps a fixed
// one-minute window per workspace (each minute of the clock: `--window minute`, as a counter keyed by
// the minute keeps it; or opened by the workspace's first request: `--window first-request`), and
// answers X-RateLimit-Remaining with
// X-RateLimit-Reset (the window's end, in epoch seconds: `--reset epoch`; the seconds left in it:
// `--reset seconds`; none: `--reset none`), and a 429 with Retry-After beyond the limit.
// `--svc` names the bin/run.js of another build of svc (an older one, to compare).
// Usage: npm run bench:free-plan [-- --window minute|first-request --reset epoch|seconds|none --svc <path/to/bin/run.js>]
// Prints the run's wall time, its pacing waits and 429 waits as the kit logged them (each credential
// waits on its own: waits of different keys overlap, and may sum to more than the wall time), the 429s
// and the verdicts.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { benchHome } from './home.js';

const { values } = parseArgs({
  options: { reset: { type: 'string', default: 'epoch' }, window: { type: 'string', default: 'minute' }, svc: { type: 'string' } },
});
if (!['epoch', 'seconds', 'none'].includes(values.reset)) throw new Error('--reset is epoch, seconds or none');
if (!['minute', 'first-request'].includes(values.window)) throw new Error('--window is minute or first-request');
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const ownBin = here('../../bin/run.js');
const kitBin = values.svc ?? ownBin;
const { home, env } = benchHome('svc-bench-free-plan-');
const dataDir = join(home, 'sandbox');
const SECRET = 'whsec_freeplanbench0123456789abcdefghijkl';
const PER_MINUTE = 10;
const WINDOW_MS = 60_000;

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

async function bodyOf(incoming) {
  const chunks = [];
  for await (const chunk of incoming) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The Free plan's front: a fixed window per workspace. */
function startFront(sandboxUrl, ca, keys) {
  const workspaceOf = new Map(keys.map((key) => [`Bearer ${key.secret}`, key.role.startsWith('other_workspace') ? 'other' : 'main']));
  const windows = new Map();
  const upstream = new Agent({ connect: { ca } });
  const counts = { requests: 0, limited: 0 };
  function take(bucket, now) {
    let window = windows.get(bucket);
    if (!window || now - window.startedAt >= WINDOW_MS) {
      window = { startedAt: values.window === 'minute' ? now - (now % WINDOW_MS) : now, used: 0 };
      windows.set(bucket, window);
    }
    const allowed = window.used < PER_MINUTE;
    if (allowed) window.used++;
    const endsAt = window.startedAt + WINDOW_MS;
    const reset = { epoch: String(Math.ceil(endsAt / 1000)), seconds: String(Math.ceil((endsAt - now) / 1000)), none: undefined }[values.reset];
    const headers = { 'x-ratelimit-remaining': String(PER_MINUTE - window.used), ...(reset && { 'x-ratelimit-reset': reset }) };
    return { allowed, headers, retryAfter: String(Math.max(1, Math.ceil((endsAt - now) / 1000))) };
  }
  const tls = { cert: readFileSync(join(dataDir, 'tls', 'cert.pem')), key: readFileSync(join(dataDir, 'tls', 'key.pem')) };
  const server = createServer(tls, async (incoming, outgoing) => {
    try {
      const body = await bodyOf(incoming);
      const now = Date.now();
      counts.requests++;
      const decision = take(workspaceOf.get(incoming.headers.authorization) ?? 'unauthenticated', now);
      const date = new Date(now).toUTCString();
      if (!decision.allowed) {
        counts.limited++;
        const refusal = JSON.stringify({ error: { code: 'rate_limited', message: `${PER_MINUTE} requests a minute on the Free plan` } });
        outgoing.writeHead(429, { 'content-type': 'application/json', date, 'retry-after': decision.retryAfter, ...decision.headers }).end(refusal);
        return;
      }
      const headers = { ...incoming.headers };
      for (const name of ['host', 'connection', 'keep-alive', 'transfer-encoding']) delete headers[name];
      const answer = await request(`${sandboxUrl}${incoming.url}`, {
        method: incoming.method,
        headers,
        body: body.length > 0 ? body : undefined,
        dispatcher: upstream,
      });
      const text = await answer.body.arrayBuffer();
      const out = { ...answer.headers, date, ...decision.headers };
      for (const name of ['connection', 'keep-alive', 'transfer-encoding']) delete out[name];
      outgoing.writeHead(answer.statusCode, out).end(Buffer.from(text));
    } catch (error) {
      if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(String(error));
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `https://127.0.0.1:${server.address().port}`,
        counts,
        close: () => new Promise((done) => (server.closeAllConnections(), server.close(() => upstream.close().then(done)))),
      }),
    ),
  );
}

const webhookPort = await freePort();
const sandbox = spawn(
  process.execPath,
  [
    ownBin,
    'sandbox',
    'start',
    '--port',
    '0',
    '--json',
    '--quiet',
    '--plan',
    'enterprise',
    '--data-dir',
    dataDir,
    '--webhook-url',
    `http://127.0.0.1:${webhookPort}/`,
  ],
  { env: { ...env, SVC_WEBHOOK_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'inherit'] },
);
let front;
try {
  const ready = JSON.parse(await firstLine(sandbox));
  const keys = JSON.parse(
    spawnSync(process.execPath, [ownBin, 'sandbox', 'keys', '--json', '--reveal', '--data-dir', dataDir], { env, encoding: 'utf8' }).stdout,
  );
  const secret = (role) => keys.find((key) => key.role === role).secret;
  front = await startFront(ready.url, readFileSync(ready.ca_cert, 'utf8'), keys);
  const kitEnv = {
    ...env,
    SVC_API_KEY: secret('test'),
    SVC_ADMIN_KEY: secret('admin'),
    SVC_READ_ONLY_KEY: secret('read_only'),
    SVC_IP_LOCKED_KEY: secret('ip_locked'),
    SVC_OTHER_WORKSPACE_KEY: secret('other_workspace'),
    SVC_OTHER_WORKSPACE_ADMIN_KEY: secret('other_workspace_admin'),
    SVC_WEBHOOK_SECRET: SECRET,
  };
  const args = [kitBin, 'contract', 'verify', '--fast', '--json', '--base-url', front.url, '--ca-cert', ready.ca_cert, '--webhook-port', String(webhookPort)];
  const started = performance.now();
  // Not spawnSync: the front answers from this process.
  const kit = await run(args, kitEnv);
  const seconds = (performance.now() - started) / 1000;
  const waits = kit.stderr
    .split('\n')
    .filter((line) => /^X-RateLimit-Remaining is \d+: waiting/.test(line))
    .map((line) => Number(/waiting (\d+) s/.exec(line)[1]));
  const retries = kit.stderr
    .split('\n')
    .filter((line) => /^429 on .*: waiting \d+ s/.test(line))
    .map((line) => Number(/waiting (\d+) s/.exec(line)[1]));
  const result = kit.stdout ? JSON.parse(kit.stdout) : undefined;
  const listed = (seconds) => `${seconds.length} (${seconds.join(' + ') || '0'} = ${seconds.reduce((sum, wait) => sum + wait, 0)} s)`;
  console.log(
    `svc: ${kitBin}; X-RateLimit-Reset: ${values.reset}; Free plan (${PER_MINUTE} requests a minute per workspace, window: ${values.window}); --fast`,
  );
  const verdicts = result?.checks
    ? `${result.passed} passed, ${result.failed} failed, ${result.skipped} skipped, ${result.inconclusive} inconclusive`
    : kit.stderr.slice(-500);
  console.log(`exit ${kit.status}; ${verdicts}`);
  console.log(`wall time ${seconds.toFixed(1)} s; ${front.counts.requests} requests, ${front.counts.limited} answered 429`);
  console.log(`pacing waits: ${listed(waits)}; 429s waited out: ${listed(retries)}`);
  for (const check of result?.checks ?? [])
    if (check.status === 'failed' || check.status === 'inconclusive') console.log(`  ${check.status} ${check.id}: ${check.detail}`);
} finally {
  await front?.close();
  sandbox.kill('SIGTERM');
  await new Promise((resolve) => sandbox.once('exit', resolve));
}
