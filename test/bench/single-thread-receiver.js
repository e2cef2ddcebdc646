// A second baseline for `svc webhooks listen`: the least a verifying, storing receiver does, on one
// thread and without output. Each delivery is verified and inserted with the listener's own
// verifyDelivery and EventStore (synchronous=FULL), in one transaction per turn of the event loop,
// then the turn's answers. Needs `npm run build` first.
// Usage: SVC_WEBHOOK_SECRET=… node test/bench/single-thread-receiver.js <store file>   (prints its port)
import { createSecretKey } from 'node:crypto';
import { createServer } from 'node:http';
import { EventStore } from '../../dist/webhooks/sqlite-store.js';
import { verifyDelivery } from '../../dist/webhooks/verify.js';

const store = new EventStore(process.argv[2]);
// The key made once, as the listener does.
const secrets = [createSecretKey(process.env.SVC_WEBHOOK_SECRET, 'utf8')];
/** This turn's verified deliveries: what to store, and how to answer once stored. */
let turn = [];

function commitTurn() {
  const deliveries = turn;
  turn = [];
  store.transaction(() => {
    for (const { event, delivery, schemaNotes } of deliveries) store.accept(event, delivery, schemaNotes);
  });
  for (const { response } of deliveries) response.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 }).end('{}');
}

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    const verdict = verifyDelivery(request.headers, body, { secrets });
    if (!verdict.ok) return response.writeHead(400, { 'content-length': 0 }).end();
    const delivery = { headers: request.headers, body, receivedAt: Date.now(), forwardUrl: null };
    if (turn.push({ event: verdict.event, schemaNotes: verdict.schemaNotes, delivery, response }) === 1) setImmediate(commitTurn);
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
