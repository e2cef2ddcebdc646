// Sends GET requests back to back on one keep-alive HTTPS connection, from the first IPC message
// ({ url, ca, key }) until the second, then sends back when each started (ms since the epoch) and how
// long it took. Run as its own process, so that what the parent does cannot delay its requests.
import { Client } from 'undici';

const { url, ca, key } = await new Promise((resolve) => process.once('message', resolve));
const target = new URL(url);
const client = new Client(target.origin, { connect: { ca }, pipelining: 1 });
const samples = [];
let stopping = false;
process.once('message', () => (stopping = true));
process.send('started');
while (!stopping) {
  const startedAt = performance.timeOrigin + performance.now();
  const { statusCode, body } = await client.request({ path: target.pathname, method: 'GET', headers: { authorization: `Bearer ${key}` } });
  await body.dump();
  if (statusCode !== 200) throw new Error(`GET ${target.pathname} answered ${statusCode}`);
  samples.push([startedAt, performance.timeOrigin + performance.now() - startedAt]);
}
await client.close();
process.send(samples, () => process.disconnect());
