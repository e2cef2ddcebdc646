/**
 * The real sandbox behind a gateway on 127.0.0.1 that makes every text of its answers hostile: each
 * string of a JSON answer (an id, a name, a message, a cursor) gets `suffix` appended, bar the values
 * svc must recognise to work at all (the schema's enums, timestamps). What svc sends back is made
 * plain again, so that the sandbox serves the flows as usual and svc shows what it was answered.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request as httpsRequest } from 'node:https';
import { readFileSync } from 'node:fs';
import schemas from '../../src/api/schemas.json' with { type: 'json' };

/** Every value of every enum of the API's schemas. */
function enumValues(node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) enumValues(item, into);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'enum' && Array.isArray(value)) for (const item of value) if (typeof item === 'string') into.add(item);
      enumValues(value, into);
    }
  }
  return into;
}

const ENUMS = enumValues(schemas);

function hostile(value: unknown, suffix: string): unknown {
  if (typeof value === 'string') return ENUMS.has(value) ? value : `${value}${suffix}`;
  if (Array.isArray(value)) return value.map((item) => hostile(item, suffix));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, hostile(item, suffix)]));
  return value;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface HostileGateway {
  url: string;
  close(): Promise<void>;
}

export async function startHostileGateway(upstream: { url: string; caCert: string }, suffix: string): Promise<HostileGateway> {
  const ca = readFileSync(upstream.caCert, 'utf8');
  const plain = (text: string) => text.split(suffix).join('');
  const relay = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://gateway');
    const path = url.pathname
      .split('/')
      .map((segment) => encodeURIComponent(plain(decodeURIComponent(segment))))
      .join('/');
    const query = new URLSearchParams([...url.searchParams].map(([name, value]): [string, string] => [name, plain(value)]));
    const search = query.size > 0 ? `?${query}` : '';
    // Byte for byte (a multipart upload is not text): the suffix's UTF-8 taken out wherever it is.
    const body = Buffer.from((await bodyOf(request)).toString('latin1').split(Buffer.from(suffix).toString('latin1')).join(''), 'latin1');
    const headers = { ...request.headers, host: new URL(upstream.url).host, 'content-length': String(body.length) };
    delete headers['accept-encoding'];
    delete headers['transfer-encoding'];
    const forwarded = httpsRequest(new URL(`${path}${search}`, upstream.url), { method: request.method, headers, ca, agent: false });
    forwarded.end(body);
    const answer = await new Promise<IncomingMessage>((resolve, reject) => forwarded.on('response', resolve).on('error', reject));
    let text = (await bodyOf(answer)).toString('utf8');
    if (/json/.test(answer.headers['content-type'] ?? '') && text !== '') text = JSON.stringify(hostile(JSON.parse(text), suffix));
    const outgoing = { ...answer.headers, 'content-length': String(Buffer.byteLength(text)) };
    delete outgoing['transfer-encoding'];
    response.writeHead(answer.statusCode ?? 502, outgoing).end(text);
  };
  const server = createServer((request, response) => void relay(request, response).catch(() => response.headersSent || response.writeHead(502).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
