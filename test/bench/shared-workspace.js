// What the share of the rate-limit window the kit leaves to others (`--rate-limit-reserve`, 25 % by
// default) costs the kit, and what it spares a client beside it: `svc contract verify` against the
// sandbox on the Pro plan (120 requests a minute per workspace, a fixed window), in real time, with
// a client of the same workspace making a request every 2 s with a key of its own. Each scenario runs
// with the reserve at 0 and at 25, each on a sandbox of its own (fresh windows): one kit with --fast,
// three kits at once with --fast (three pipelines sharing the workspace), one full kit run (its
// events, the 30 s redeliveries). Prints each run's wall time (the slowest kit's), its pacing waits
// as the kits logged them, the 429s the kits waited out, the client's requests and 429s, and the
// wall time with the reserve as a ratio to the time without it.
// Usage: npm run bench:shared-workspace [-- --svc <path/to/bin/run.js>]
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { benchHome } from './home.js';

const { values } = parseArgs({ options: { svc: { type: 'string' } } });
const ownBin = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const kitBin = values.svc ?? ownBin;
const SECRET = 'whsec_sharedworkspacebench0123456789abcde';
const NEIGHBOUR_EVERY_MS = 2_000;

function freePort() {
  return new Promise((resolve) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function run(args, env) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (output.stderr += chunk));
  const started = performance.now();
  return new Promise((resolve) => child.once('exit', (status) => resolve({ ...output, status, seconds: (performance.now() - started) / 1000 })));
}

/** A sandbox on the Pro plan, its keys, and a client of its main workspace with a key of its own. */
async function startSandbox(webhookPort) {
  const { home, env } = benchHome('svc-bench-shared-workspace-');
  const dataDir = join(home, 'sandbox');
  const webhooks = webhookPort ? ['--webhook-url', `http://127.0.0.1:${webhookPort}/`, '--webhook-secret', SECRET] : [];
  const child = spawn(process.execPath, [ownBin, 'sandbox', 'start', '--port', '0', '--json', '--quiet', '--plan', 'pro', '--data-dir', dataDir, ...webhooks], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = JSON.parse(await new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve)));
  const keys = JSON.parse(
    spawnSync(process.execPath, [ownBin, 'sandbox', 'keys', '--json', '--reveal', '--data-dir', dataDir], { env, encoding: 'utf8' }).stdout,
  );
  const secret = (role) => keys.find((key) => key.role === role).secret;
  const dispatcher = new Agent({ connect: { ca: readFileSync(ready.ca_cert, 'utf8') } });
  const made = await request(`${ready.url}/v1/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret('admin')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'a client beside the kit' }),
    dispatcher,
  });
  const neighbourKey = (await made.body.json()).secret;
  return {
    url: ready.url,
    caCert: ready.ca_cert,
    kitEnv: {
      ...env,
      SVC_API_KEY: secret('test'),
      SVC_ADMIN_KEY: secret('admin'),
      SVC_READ_ONLY_KEY: secret('read_only'),
      SVC_IP_LOCKED_KEY: secret('ip_locked'),
      SVC_OTHER_WORKSPACE_KEY: secret('other_workspace'),
      SVC_OTHER_WORKSPACE_ADMIN_KEY: secret('other_workspace_admin'),
      SVC_WEBHOOK_SECRET: SECRET,
    },
    /** The client beside the kit: a request every NEIGHBOUR_EVERY_MS until stopped. */
    neighbour() {
      const statuses = [];
      let running = true;
      const loop = (async () => {
        while (running) {
          const answer = await request(`${ready.url}/v1/reports`, { headers: { authorization: `Bearer ${neighbourKey}` }, dispatcher });
          await answer.body.arrayBuffer();
          statuses.push(answer.statusCode);
          await sleep(NEIGHBOUR_EVERY_MS);
        }
      })();
      return { statuses, stop: () => ((running = false), loop) };
    },
    async stop() {
      await dispatcher.close();
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** The waits a kit logged: pacing (`X-RateLimit-Remaining is N: waiting S s`) and 429s it waited out. */
function waitsOf(stderr) {
  const seconds = (pattern) =>
    stderr
      .split('\n')
      .filter((line) => pattern.test(line))
      .map((line) => Number(/waiting (\d+) s/.exec(line)[1]));
  return { pacing: seconds(/^X-RateLimit-Remaining is \d+: waiting \d+ s/), retries: seconds(/^429 on .*: waiting \d+ s/) };
}

async function scenario(name, kits, full, reserve) {
  const webhookPort = full ? await freePort() : undefined;
  const sandbox = await startSandbox(webhookPort);
  try {
    const client = sandbox.neighbour();
    await sleep(100);
    const args = [
      kitBin,
      ...['contract', 'verify', '--json', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--rate-limit-reserve', String(reserve)],
      ...(full ? ['--webhook-port', String(webhookPort)] : ['--fast']),
    ];
    const runs = await Promise.all(Array.from({ length: kits }, () => run(args, sandbox.kitEnv)));
    await client.stop();
    const waits = runs.map((kit) => waitsOf(kit.stderr));
    const verdicts = runs.map((kit) => {
      const result = kit.stdout ? JSON.parse(kit.stdout) : undefined;
      return result?.checks ? `${result.verdict} (${result.failed} failed, ${result.inconclusive} inconclusive)` : `exit ${kit.status}`;
    });
    return {
      name,
      reserve,
      seconds: Math.max(...runs.map((kit) => kit.seconds)),
      each: runs.map((kit) => kit.seconds.toFixed(1)).join(', '),
      pacing: waits.flatMap((wait) => wait.pacing),
      retries: waits.flatMap((wait) => wait.retries),
      neighbour: { requests: client.statuses.length, refused: client.statuses.filter((status) => status === 429).length },
      verdicts: [...new Set(verdicts)].join('; '),
    };
  } finally {
    await sandbox.stop();
  }
}

const listed = (seconds) => `${seconds.length} (${seconds.reduce((sum, wait) => sum + wait, 0)} s)`;
console.log(`svc: ${kitBin}; the sandbox on the Pro plan; a client beside the kit, a request every ${NEIGHBOUR_EVERY_MS / 1000} s`);
console.log(
  '| scenario | reserve | wall time, s (each kit) | pacing waits (total) | 429s waited out (total) | the client: requests, 429 | verdicts | × without the reserve |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const [name, kits, full] of [
  ['one kit, --fast', 1, false],
  ['three kits at once, --fast', 3, false],
  ['one kit, full run', 1, true],
]) {
  let baseline;
  for (const reserve of [0, 25]) {
    const result = await scenario(name, kits, full, reserve);
    baseline ??= result.seconds;
    console.log(
      `| ${name} | ${reserve} % | ${result.seconds.toFixed(1)} (${result.each}) | ${listed(result.pacing)} | ${listed(result.retries)} | ${result.neighbour.requests}, ${result.neighbour.refused} | ${result.verdicts} | ${(result.seconds / baseline).toFixed(2)} |`,
    );
  }
}
