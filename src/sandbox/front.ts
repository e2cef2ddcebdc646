import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';

/** When the sandbox closes a connection that is slow or idle, in milliseconds. */
export interface ConnectionDeadlines {
  /** From the connection to its first byte, and again from there to the end of the TLS handshake. */
  handshakeMs: number;
  /** From the handshake, or the first byte of a later request, to the end of the request's headers. */
  headersMs: number;
  /** From the first byte of a request to the end of its body. */
  requestMs: number;
  /** Between an answer and the next request on a kept-alive connection. */
  keepAliveMs: number;
}

/** Generous for any client, even a 10 MiB upload over a slow link; a client that stalls longer is gone. */
export const DEFAULT_CONNECTION_DEADLINES: ConnectionDeadlines = { handshakeMs: 10_000, headersMs: 30_000, requestMs: 120_000, keepAliveMs: 30_000 };

const TLS_HANDSHAKE = 0x16;

export interface FrontOptions {
  /** The address to listen on: an IP address, or 0.0.0.0 or :: for every interface. */
  host: string;
  port: number;
  certificate: { cert: string; key: string };
  deadlines: ConnectionDeadlines;
  onRequest: (request: IncomingMessage, response: ServerResponse) => void;
  /** The raw answer to a connection whose first byte is not a TLS handshake; it is then closed. */
  refusePlain: (socket: Socket) => string;
}

/** A connection whose first byte starts a TLS handshake goes to `https`; any other gets `refusePlain`'s answer and is closed. */
function routeByFirstByte(socket: Socket, https: HttpsServer, handshakeMs: number, refusePlain: FrontOptions['refusePlain']): void {
  // Until the first byte; a plain-HTTP client that does not close after the refusal is closed too.
  socket.setTimeout(handshakeMs, () => socket.destroy());
  socket.once('data', (first: Buffer) => {
    socket.pause();
    socket.unshift(first);
    if (first[0] === TLS_HANDSHAKE) {
      socket.setTimeout(0);
      https.emit('connection', socket);
    } else {
      socket.end(refusePlain(socket));
    }
  });
}

/**
 * One port on `host` for both: a connection that starts with a TLS handshake goes to the HTTPS
 * server, anything else gets `refusePlain`'s answer. Closing ends idle connections at once and busy
 * ones when their answer is sent, and every one after 5 s.
 */
export async function listenWithTlsFront(options: FrontOptions): Promise<{ port: number; close: () => Promise<void> }> {
  const { deadlines } = options;
  // The HTTPS server never listens itself, so Node does not track its connections: this does,
  // to close idle keep-alive connections at once on stop and busy ones when their answer is sent.
  const sockets = new Set<Socket>();
  const busy = new Map<Socket, number>();
  let closing = false;
  const https = createHttpsServer(
    {
      cert: options.certificate.cert,
      key: options.certificate.key,
      handshakeTimeout: deadlines.handshakeMs,
      headersTimeout: deadlines.headersMs,
      requestTimeout: deadlines.requestMs,
      keepAliveTimeout: deadlines.keepAliveMs,
      connectionsCheckingInterval: Math.ceil(deadlines.headersMs / 10),
    },
    (request, response) => {
      const socket = request.socket;
      busy.set(socket, (busy.get(socket) ?? 0) + 1);
      response.on('close', () => {
        const left = (busy.get(socket) ?? 1) - 1;
        busy.set(socket, left);
        if (closing && left === 0) socket.destroy();
      });
      if (closing) response.setHeader('connection', 'close');
      options.onRequest(request, response);
    },
  );
  https.on('secureConnection', (socket: Socket) => socket.on('close', () => busy.delete(socket)));
  // Node enforces headersTimeout and requestTimeout on the connections it tracks, and starts tracking
  // them when the server emits 'listening', which a server that never listens does not.
  https.emit('listening');
  const front = createNetServer((socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    routeByFirstByte(socket, https, deadlines.handshakeMs, options.refusePlain);
  });
  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (front.address() as AddressInfo).port,
    async close() {
      closing = true;
      https.close();
      await new Promise<void>((resolve) => {
        front.close(() => resolve());
        for (const [socket, requests] of busy) if (requests === 0) socket.destroy();
        setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, 5_000).unref();
      });
    },
  };
}
