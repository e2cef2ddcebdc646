// A keep-alive HTTPS load generator, run as its own process so it does not share the server's core.
// Usage: node test/bench/load.js <url> <ca.pem> <seconds> <connections> [bearer key]
// Prints one JSON line: { requests, errors, seconds, rate, p50_ms, p99_ms }.
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';

const [url, caFile, seconds = '5', connections = '16', key] = process.argv.slice(2);
const target = new URL(url);
const pool = new Pool(target.origin, { connections: Number(connections), pipelining: 1, connect: { ca: readFileSync(caFile, 'utf8') } });
const headers = key ? { authorization: `Bearer ${key}` } : {};
const latencies = [];
let errors = 0;
const deadline = performance.now() + Number(seconds) * 1000;

async function worker() {
  while (performance.now() < deadline) {
    const started = performance.now();
    try {
      const { statusCode, body } = await pool.request({ path: target.pathname + target.search, method: 'GET', headers });
      await body.dump();
      if (statusCode !== 200) errors++;
    } catch {
      errors++;
    }
    latencies.push(performance.now() - started);
  }
}

const started = performance.now();
await Promise.all(Array.from({ length: Number(connections) }, worker));
const elapsed = (performance.now() - started) / 1000;
await pool.close();
latencies.sort((a, b) => a - b);
const at = (quantile) => Number(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * quantile))].toFixed(2));
console.log(
  JSON.stringify({
    requests: latencies.length,
    errors,
    seconds: Number(elapsed.toFixed(2)),
    rate: Math.round(latencies.length / elapsed),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
  }),
);
