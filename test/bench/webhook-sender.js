// A lean concurrent webhook sender, run as its own process so it does not share the receiver's
// core: POSTs distinct signed report.completed events over keep-alive connections, one request at
// a time per connection. It writes pre-built request bytes to raw sockets and reads just the status
// line and Content-Length of each answer, so that it costs little CPU itself (an HTTP client
// library would take as much CPU per request as the servers measured). A warm-up round, untimed,
// comes first, so that neither server is measured while its JIT compiler is still at work.
// Usage: node test/bench/webhook-sender.js <url[,url…]> <count> <connections> <acked-ids-file> [warm-up count]   (secret from SVC_WEBHOOK_SECRET)
// Several URLs (replicas behind a load balancer): the connections are spread over them in turn.
// Prints one JSON line: { sent, acknowledged, errors, seconds, rate, p50_ms, p99_ms } of the timed
// round; writes the ids acknowledged in either round to the file.
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { sampleEvent } from '../../dist/webhooks/samples.js';
import { signatureHeader } from '../../dist/webhooks/signature.js';

const [url, count = '20000', connections = '32', ackedFile, warmup = '5000'] = process.argv.slice(2);
const secret = process.env.SVC_WEBHOOK_SECRET;
const targets = url.split(',').map((each) => new URL(each));
const [target] = targets;

// Signed before the clock starts, so signing costs the sender nothing during the run.
function deliveries(total) {
  return Array.from({ length: total }, () => {
    const event = sampleEvent('report.completed');
    const body = JSON.stringify(event);
    const head = [
      `POST ${target.pathname} HTTP/1.1`,
      `host: ${target.host}`,
      'content-type: application/json',
      `service-event: ${event.type}`,
      `service-signature: ${signatureHeader(secret, body)}`,
      `content-length: ${Buffer.byteLength(body)}`,
      '',
      '',
    ].join('\r\n');
    return { id: event.id, bytes: Buffer.from(head + body) };
  });
}

const acknowledged = [];

/** Sends `list` over the open sockets, one request at a time on each; resolves with the latencies and the error count. */
function round(sockets, list) {
  return new Promise((resolve) => {
    const latencies = [];
    let errors = 0;
    let next = 0;
    let open = sockets.length;
    for (const socket of sockets) {
      let pending = Buffer.alloc(0);
      let current;
      let started = 0;
      const sendNext = () => {
        if (next >= list.length) {
          socket.removeAllListeners('data');
          socket.removeAllListeners('error');
          if (--open === 0) resolve({ latencies, errors });
          return;
        }
        current = list[next++];
        started = performance.now();
        socket.write(current.bytes);
      };
      socket.on('data', (chunk) => {
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = pending.subarray(0, end).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        pending = pending.subarray(end + 4 + length);
        const status = Number(head.slice(9, 12));
        latencies.push(performance.now() - started);
        if (status >= 200 && status < 300) acknowledged.push(current.id);
        else errors++;
        sendNext();
      });
      socket.on('error', () => {
        errors++;
        if (--open === 0) resolve({ latencies, errors });
      });
      sendNext();
    }
  });
}

const warm = deliveries(Number(warmup));
const timed = deliveries(Number(count));
const sockets = await Promise.all(
  Array.from(
    { length: Number(connections) },
    (_, index) =>
      new Promise((resolve) => {
        const { hostname, port } = targets[index % targets.length];
        const socket = connect({ host: hostname, port: Number(port), noDelay: true }, () => resolve(socket));
      }),
  ),
);
await round(sockets, warm);
const started = performance.now();
const { latencies, errors } = await round(sockets, timed);
const elapsed = (performance.now() - started) / 1000;
for (const socket of sockets) socket.destroy();
if (ackedFile) writeFileSync(ackedFile, acknowledged.join('\n'));
latencies.sort((a, b) => a - b);
const at = (quantile) => Number(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * quantile))].toFixed(2));
console.log(
  JSON.stringify({
    sent: timed.length,
    acknowledged: timed.length - errors,
    errors,
    seconds: Number(elapsed.toFixed(2)),
    rate: Math.round(latencies.length / elapsed),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
  }),
);
