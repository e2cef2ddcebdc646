// The run time and requests of `svc contract verify --fast` against an implementation that answers
// 429 to everything (`Retry-After: 1`, or `--retry-after`) but the kit's first request, in real
// time: the run's budgets for waits and for transient answers in a row (issue 43 item 4) stop it.
// `--svc` names the bin/run.js of another build of svc (an older one, to compare); a run still going
// after `--kill-after` seconds (default 180) is killed and reported so.
// Usage: npm run bench:always-429 [-- --retry-after 1 --kill-after 180 --svc <path/to/bin/run.js>]
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generate } from 'selfsigned';
import { benchHome } from './home.js';

const { values } = parseArgs({
  options: { 'retry-after': { type: 'string', default: '1' }, 'kill-after': { type: 'string', default: '180' }, svc: { type: 'string' } },
});
const kitBin = values.svc ?? fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const killAfterS = Number(values['kill-after']);
const { home, env } = benchHome('svc-bench-always-429-');

const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
  keyType: 'ec',
  algorithm: 'sha256',
  extensions: [
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
  ],
});
const caCert = join(home, 'ca.pem');
writeFileSync(caCert, pems.cert);

const counts = { requests: 0, limited: 0 };
const server = createServer({ key: pems.private, cert: pems.cert }, (incoming, outgoing) => {
  incoming.resume().on('end', () => {
    counts.requests++;
    if (counts.requests === 1) return outgoing.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-remaining': '99' }).end('{"data":[]}');
    counts.limited++;
    outgoing
      .writeHead(429, { 'content-type': 'application/json', 'retry-after': values['retry-after'], 'x-ratelimit-remaining': '0' })
      .end('{"error":{"code":"rate_limited","message":"too many requests"}}');
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `https://127.0.0.1:${server.address().port}`;

const started = performance.now();
const kit = spawn(process.execPath, [kitBin, 'contract', 'verify', '--fast', '--json', '--base-url', baseUrl, '--ca-cert', caCert], {
  env: { ...env, SVC_API_KEY: `svc_test_${'d'.repeat(32)}` },
  stdio: ['ignore', 'pipe', 'pipe'],
  timeout: killAfterS * 1000,
  killSignal: 'SIGKILL',
});
let stdout = '';
let stderr = '';
kit.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
kit.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
const [code, signal] = await new Promise((resolve) => kit.once('exit', (...ended) => resolve(ended)));
const seconds = (performance.now() - started) / 1000;
server.closeAllConnections();
server.close();

const result = stdout ? JSON.parse(stdout) : undefined;
console.log(`svc: ${kitBin}; every answer but the first 429 with Retry-After: ${values['retry-after']}; --fast`);
console.log(
  signal
    ? `killed after ${killAfterS} s, still running`
    : `exit ${code}${result?.checks ? `; ${result.passed} passed, ${result.failed} failed, ${result.inconclusive} inconclusive` : ''}`,
);
console.log(`wall time ${seconds.toFixed(1)} s; ${counts.requests} requests, ${counts.limited} answered 429`);
if (result?.run?.stopped) console.log(`stopped: ${result.run.stopped.budget}: ${result.run.stopped.message}`);
