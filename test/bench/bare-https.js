// The baseline: a bare Node HTTPS server on 127.0.0.1 that only answers 200, with the sandbox's certificate.
// Usage: node test/bench/bare-https.js <cert.pem> <key.pem>   (prints its port)
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const [cert, key] = process.argv.slice(2).map((file) => readFileSync(file, 'utf8'));
const server = createServer({ cert, key, keepAliveTimeout: 30_000 }, (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end('{}');
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
