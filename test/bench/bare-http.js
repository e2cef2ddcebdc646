// The baseline: a bare Node HTTP server on 127.0.0.1 that only answers 200.
// Usage: node test/bench/bare-http.js   (prints its port)
import { createServer } from 'node:http';

const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
  response.end('{}');
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
