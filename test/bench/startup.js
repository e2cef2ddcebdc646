// Start-up time of `svc --version` and `svc --help` next to bare `node -e 0`, on the same Node.
// Usage: npm run bench:startup [-- --runs 30]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' } } });
const runs = Number(values.runs);
const bin = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const env = { ...process.env, NO_COLOR: '1' };

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function time(args) {
  spawnSync(process.execPath, args, { env }); // warm the file cache and Node's compile cache
  const samples = [];
  for (let run = 0; run < runs; run++) {
    const started = process.hrtime.bigint();
    const child = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (child.status !== 0) throw new Error(`${args.join(' ')} exited ${child.status}: ${child.stderr}`);
  }
  return median(samples);
}

const baseline = time(['-e', '0']);
const rows = [
  ['node -e 0', baseline],
  ['svc --version', time([bin, '--version'])],
  ['svc --help', time([bin, '--help'])],
];
console.log(`Node ${process.version}, median of ${runs} runs each`);
for (const [name, ms] of rows) console.log(`${name.padEnd(14)} ${ms.toFixed(1).padStart(7)} ms  ${(ms / baseline).toFixed(2)}× node -e 0`);
