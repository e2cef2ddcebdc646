/**
 * The real sandbox behind a gateway on 127.0.0.1 (plain HTTP) that rewrites its JSON answers, as
 * another implementation of the specification would answer: a hostile one whose every text carries
 * escape sequences, one that leaves out a field the specification does not show.
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

export interface RewritingGateway {
  url: string;
  close(): Promise<void>;
}

/**
 * `answer` rewrites each JSON answer; `sent` takes out of what svc sends back (the path's segments,
 * the query's values, the body as latin1 text, byte for byte) what `answer` put in, so that the
 * sandbox serves the flows as usual.
 */
export async function startRewritingGateway(
  upstream: { url: string; caCert: string },
  rewrite: { answer: (json: unknown) => unknown; sent?: (text: string) => string },
): Promise<RewritingGateway> {
  const ca = readFileSync(upstream.caCert, 'utf8');
  const sent = rewrite.sent ?? ((text: string) => text);
  const relay = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://gateway');
    const path = url.pathname
      .split('/')
      .map((segment) => encodeURIComponent(sent(decodeURIComponent(segment))))
      .join('/');
    const query = new URLSearchParams([...url.searchParams].map(([name, value]): [string, string] => [name, sent(value)]));
    const search = query.size > 0 ? `?${query}` : '';
    const body = Buffer.from(sent((await bodyOf(request)).toString('latin1')), 'latin1');
    const headers = { ...request.headers, host: new URL(upstream.url).host, 'content-length': String(body.length) };
    delete headers['accept-encoding'];
    delete headers['transfer-encoding'];
    const forwarded = httpsRequest(new URL(`${path}${search}`, upstream.url), { method: request.method, headers, ca, agent: false });
    forwarded.end(body);
    const answer = await new Promise<IncomingMessage>((resolve, reject) => forwarded.on('response', resolve).on('error', reject));
    let text = (await bodyOf(answer)).toString('utf8');
    if (/json/.test(answer.headers['content-type'] ?? '') && text !== '') text = JSON.stringify(rewrite.answer(JSON.parse(text)));
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

/**
 * Every string of every answer (an id, a name, a message, a cursor) with `suffix` appended, bar the
 * values svc must recognise to work at all (the schema's enums); taken out again of what svc sends.
 */
export function startHostileGateway(upstream: { url: string; caCert: string }, suffix: string): Promise<RewritingGateway> {
  // What svc sends is taken as latin1 text: the suffix's UTF-8 bytes are taken out wherever they are.
  const inBytes = Buffer.from(suffix).toString('latin1');
  return startRewritingGateway(upstream, {
    answer: (json) => hostile(json, suffix),
    sent: (text) => text.split(suffix).join('').split(inBytes).join(''),
  });
}
