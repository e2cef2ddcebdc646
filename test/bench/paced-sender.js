// Sends distinct signed report.completed events to a webhook receiver at a fixed pace, each on its
// way whether or not the earlier ones were answered, as the service sends them. Run as its own
// process, so that what the parent does (sending forged deliveries) cannot delay its timing.
// Usage: node test/bench/paced-sender.js <url> <count> <pace ms>   (secret from SVC_WEBHOOK_SECRET)
// Prints one JSON line: { ids, statuses, latencies } (ms from when each was due to its answer).
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { sampleEvent } from '../../dist/webhooks/samples.js';
import { signatureHeader } from '../../dist/webhooks/signature.js';

const [url, count, pace] = process.argv.slice(2);
const target = new URL(url);
// No cap on connections: a stalled receiver is measured, not the sender's queue.
const pool = new Pool(target.origin);

const deliveries = Array.from({ length: Number(count) }, () => {
  const event = sampleEvent('report.completed');
  const body = JSON.stringify(event);
  const headers = {
    'content-type': 'application/json',
    'service-event': event.type,
    'service-signature': signatureHeader(process.env.SVC_WEBHOOK_SECRET, body),
  };
  return { id: event.id, body, headers };
});

async function deliver({ body, headers }, due) {
  const response = await pool.request({ path: target.pathname, method: 'POST', headers: { ...headers, 'x-sent': String(Date.now()) }, body });
  await response.body.dump();
  return { status: response.statusCode, latency: performance.now() - due };
}

const start = performance.now();
const answers = [];
for (const [index, delivery] of deliveries.entries()) {
  const due = start + index * Number(pace);
  await sleep(Math.max(0, due - performance.now()));
  answers.push(deliver(delivery, due));
}
const results = await Promise.all(answers);
await pool.close();
console.log(
  JSON.stringify({
    ids: deliveries.map((delivery) => delivery.id),
    statuses: results.map((result) => result.status),
    latencies: results.map((result) => result.latency),
  }),
);
