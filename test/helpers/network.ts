import { EventEmitter, once } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, request as httpRequest, type Server } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import { type AddressInfo, connect, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { generate } from 'selfsigned';

export interface Pem {
  cert: string;
  key: string;
}

/** A certificate authority of the test's own, as a corporate one is: it signs the gateway's certificate, or the clients'. */
export async function makeCa(name: string): Promise<Pem> {
  const pems = await generate([{ name: 'commonName', value: name }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/** A certificate signed by `ca`: a server's for 127.0.0.1, localhost and `names`, or a client's. */
export async function issue(
  ca: Pem,
  use: 'server' | 'client',
  name = use === 'server' ? 'localhost' : 'svc-client',
  names: readonly string[] = [],
): Promise<Pem> {
  const pems = await generate([{ name: 'commonName', value: name }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ca,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true },
      { name: 'extKeyUsage', serverAuth: use === 'server', clientAuth: use === 'client' },
      ...(use === 'server'
        ? [
            {
              name: 'subjectAltName' as const,
              altNames: [
                { type: 2 as const, value: 'localhost' },
                ...names.map((value) => ({ type: 2 as const, value })),
                { type: 7 as const, ip: '127.0.0.1' },
              ],
            },
          ]
        : []),
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}

export interface ConnectProxy {
  /** http://127.0.0.1:<port>, with the credentials when the proxy asks for some. */
  url: string;
  /** `host:port` of every tunnel asked for (CONNECT), in order, refused ones included. */
  tunnels: string[];
  /** The absolute URLs of plain HTTP requests it passed on. */
  forwarded: string[];
  /** The local port of every connection it made to a server: how a server tells a proxied connection from a direct one. */
  upstreamPorts: Set<number>;
  /** Every byte it carried, both ways (TLS records for a tunnel): a key sent through a tunnel must not be there in clear. */
  carried(): Buffer;
  close(): Promise<void>;
}

/**
 * A forward proxy on 127.0.0.1 as corporate networks run them: HTTPS through CONNECT tunnels, plain
 * HTTP passed on by absolute URL; with `credentials`, each request needs them (407 otherwise). It
 * resolves the names of `hosts` itself (to 127.0.0.1), as a proxy resolves names its clients cannot:
 * svc reaches a loopback host directly, so a test reaches a server through the proxy by such a name.
 */
export async function startConnectProxy(options: { credentials?: { user: string; password: string }; hosts?: readonly string[] } = {}): Promise<ConnectProxy> {
  const resolve = (host: string) => (options.hosts?.includes(host) ? '127.0.0.1' : host);
  const tunnels: string[] = [];
  const forwarded: string[] = [];
  const upstreamPorts = new Set<number>();
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  const expected = options.credentials && `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString('base64')}`;
  const authorised = (request: IncomingMessage) => !expected || request.headers['proxy-authorization'] === expected;
  const record = (socket: Socket) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  };

  const server = createHttpServer((request, response) => {
    forwarded.push(request.url ?? '');
    if (!authorised(request)) {
      response.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    const target = new URL(request.url ?? '');
    target.hostname = resolve(target.hostname);
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !name.startsWith('proxy-')));
    const upstream = httpRequest(target, { method: request.method, headers, agent: false }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('socket', (socket) => socket.on('connect', () => upstreamPorts.add(socket.localPort ?? 0)));
    upstream.on('error', () => response.headersSent || response.writeHead(502).end());
    request.pipe(upstream);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push(request.url ?? '');
    if (!authorised(request)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const [host, port] = (request.url ?? '').split(/:(?=\d+$)/);
    const upstream = connect(Number(port), resolve(host?.replace(/^\[|\]$/g, '') ?? ''), () => {
      upstreamPorts.add(upstream.localPort ?? 0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      record(client);
      record(upstream);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = portOf(server);
  const credentials = options.credentials ? `${encodeURIComponent(options.credentials.user)}:${encodeURIComponent(options.credentials.password)}@` : '';
  return {
    url: `http://${credentials}127.0.0.1:${port}`,
    tunnels,
    forwarded,
    upstreamPorts,
    carried: () => Buffer.concat(chunks),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** What a request handed to a proxy showed it: the request line, and the headers that carry secrets. */
interface ProxiedRequest {
  /** `GET http://127.0.0.1:4010/v1/reports`, or `CONNECT 127.0.0.1:8443`. */
  line: string;
  authorization: string | undefined;
  signature: string | undefined;
}

export interface AnsweringProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Every request it was handed, in order. */
  seen: ProxiedRequest[];
  close(): Promise<void>;
}

/**
 * A proxy on 127.0.0.1 that answers every plain-HTTP request itself (200, a listing of a report of
 * its own, `rep_from_the_proxy`) and refuses every tunnel (403), recording what it was handed: what
 * a request that goes to a proxy when it should not shows, and how its answer passes for the server's.
 */
export async function startAnsweringProxy(): Promise<AnsweringProxy> {
  const seen: ProxiedRequest[] = [];
  const record = (request: IncomingMessage) =>
    seen.push({
      line: `${request.method} ${request.url}`,
      authorization: request.headers.authorization,
      signature: request.headers['service-signature'] as string | undefined,
    });
  const server = createHttpServer((request, response) => {
    record(request);
    request.resume();
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ data: [{ id: 'rep_from_the_proxy', status: 'completed', created_at: new Date().toISOString() }], has_more: false }));
  });
  server.on('connect', (request: IncomingMessage, client: Socket) => {
    record(request);
    client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${portOf(server)}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface GatewayRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  userAgent: string | undefined;
  acceptEncoding: string | undefined;
  /** The port the request's connection came from. */
  remotePort: number;
  /** The subject of the client certificate presented, if any. */
  clientCertificate: string | undefined;
}

export interface Gateway {
  /** https://127.0.0.1:<port>/visa-api */
  baseUrl: string;
  requests: GatewayRequest[];
  close(): Promise<void>;
}

/**
 * An API gateway in front of an implementation, as enterprises run them: HTTPS with a certificate of
 * their CA, the API under a path prefix, answers gzip-compressed for a client that accepts it, and,
 * with `clientCa`, a client certificate of that CA required.
 */
export async function startGateway(options: { upstream: string; upstreamCa: string; certificate: Pem; clientCa?: string; prefix?: string }): Promise<Gateway> {
  const prefix = options.prefix ?? '/visa-api';
  const requests: GatewayRequest[] = [];
  const server = createHttpsServer(
    { ...options.certificate, ...(options.clientCa && { ca: options.clientCa, requestCert: true, rejectUnauthorized: true }) },
    (request, response) => {
      const socket = request.socket as TLSSocket;
      const peer = socket.getPeerCertificate();
      requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        authorization: request.headers.authorization,
        userAgent: request.headers['user-agent'],
        acceptEncoding: request.headers['accept-encoding'],
        remotePort: socket.remotePort ?? 0,
        clientCertificate: peer.subject?.CN as string | undefined,
      });
      if (!request.url?.startsWith(`${prefix}/`)) {
        response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
        return;
      }
      const headers = { ...request.headers, host: new URL(options.upstream).host };
      delete headers['accept-encoding'];
      const upstream = httpsRequest(
        new URL(request.url.slice(prefix.length), options.upstream),
        { method: request.method, headers, ca: options.upstreamCa, agent: false },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => body.push(chunk));
          answer.on('end', () => {
            const gzip = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '');
            const outgoing = { ...answer.headers };
            delete outgoing['content-length'];
            delete outgoing['transfer-encoding'];
            if (gzip) outgoing['content-encoding'] = 'gzip';
            response.writeHead(answer.statusCode ?? 502, outgoing).end(gzip ? gzipSync(Buffer.concat(body)) : Buffer.concat(body));
          });
        },
      );
      upstream.on('error', () => response.headersSent || response.writeHead(502).end());
      request.pipe(upstream);
    },
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseUrl: `https://127.0.0.1:${portOf(server)}${prefix}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A webhook receiver on plain HTTP that answers 200 and records the port each delivery's connection came from. */
export async function startRecordingReceiver(): Promise<{
  url: string;
  deliveries: Array<{ path: string; remotePort: number; event: string | undefined }>;
  /** Resolves at the first delivery to `path`, come or to come. */
  delivery(path: string): Promise<void>;
  close(): Promise<void>;
}> {
  const deliveries: Array<{ path: string; remotePort: number; event: string | undefined }> = [];
  const arrivals = new EventEmitter();
  const server = createHttpServer((request, response) => {
    deliveries.push({ path: request.url ?? '', remotePort: request.socket.remotePort ?? 0, event: request.headers['service-event'] as string | undefined });
    arrivals.emit(request.url ?? '');
    request.resume();
    request.on('end', () => response.writeHead(200).end('ok'));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${portOf(server)}`,
    deliveries,
    delivery: (path) => (deliveries.some((delivery) => delivery.path === path) ? Promise.resolve() : once(arrivals, path).then(() => undefined)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
