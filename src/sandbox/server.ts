import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { Route, SandboxApp } from './app.js';
import { Authenticator, authorise, clientAddress } from './auth.js';
import { WebhookDispatcher } from './dispatcher.js';
import { EventLog } from './events.js';
import { DEFAULT_DOCUMENT_CHECK_BUDGET, type DocumentCheckBudget } from './document-checker.js';
import { errorBody, HttpError, sendJson } from './http.js';
import { randomToken } from '../ids.js';
import { ensureSandboxKeys } from './keys.js';
import { Processing } from './processing.js';
import { type Plan, PLAN_LIMITS, RateLimiter } from './rate-limit.js';
import { applicantRoutes } from './routes/applicants.js';
import { documentRoutes } from './routes/documents.js';
import { keyRoutes } from './routes/keys.js';
import { reportRoutes } from './routes/reports.js';
import { SandboxStore } from './store.js';
import { ensureCertificate } from './tls.js';

export interface SandboxOptions {
  dataDir: string;
  port: number;
  /** Subscriber URLs; when not given, those of the previous start are kept. */
  webhookUrls?: string[] | undefined;
  /** When not given, the one of the previous start, or a new one on first start. */
  webhookSecret?: string | undefined;
  timeScale?: number;
  plan?: Plan;
  /** Reports a month for live keys, instead of the plan's (to try out the quota). */
  monthlyQuota?: number | undefined;
  analysisDelayMs?: number;
  /** What one document's check may take (defaults: DEFAULT_DOCUMENT_CHECK_BUDGET). */
  documentCheckBudget?: Partial<DocumentCheckBudget> | undefined;
  /** One line per request and per webhook attempt. */
  log?: ((line: string) => void) | undefined;
  /** Deadlines of slow and idle connections (defaults: DEFAULT_CONNECTION_DEADLINES). */
  connectionDeadlines?: Partial<ConnectionDeadlines> | undefined;
}

/** When the sandbox closes a connection that is slow or idle, in milliseconds. */
interface ConnectionDeadlines {
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
const DEFAULT_CONNECTION_DEADLINES: ConnectionDeadlines = { handshakeMs: 10_000, headersMs: 30_000, requestMs: 120_000, keepAliveMs: 30_000 };

export interface Sandbox {
  url: string;
  port: number;
  dataDir: string;
  certPath: string;
  webhookUrls: string[];
  webhookSecret: string;
  plan: Plan;
  /** Whether the workspaces and keys were made by this start. */
  firstStart: boolean;
  store: SandboxStore;
  close(): Promise<void>;
}

const ROUTES: Route[] = [...reportRoutes, ...applicantRoutes, ...documentRoutes, ...keyRoutes];

/** The route for a request, or 404 for an unknown path and 405 for a known path with another method. */
function findRoute(method: string, path: string): { route: Route; params: string[] } {
  const allowed: string[] = [];
  for (const route of ROUTES) {
    const match = route.path.exec(path);
    if (!match) continue;
    if (route.method === method) return { route, params: match.slice(1) };
    allowed.push(route.method);
  }
  if (allowed.length > 0) throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${path}`, undefined, { allow: allowed.join(', ') });
  throw new HttpError(404, 'not_found', `no such resource: ${path}`);
}
const TLS_HANDSHAKE = 0x16;
const KEY_USE_FLUSH_MS = 500;

function plainHttpRefusal(remaining: number): string {
  const body = JSON.stringify({ error: { code: 'https_required', message: 'plain HTTP is not accepted; use https://' } });
  return [
    'HTTP/1.1 400 Bad Request',
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-RateLimit-Remaining: ${remaining}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * The embedded sandbox: the whole specification over HTTPS on 127.0.0.1, with state in SQLite.
 * Plain HTTP on the same port is answered 400 `https_required` (part 5.2) and the connection closed.
 */
export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const plan = options.plan ?? 'pro';
  const certificate = await ensureCertificate(options.dataDir);
  const store = new SandboxStore(options.dataDir);
  const firstStart = ensureSandboxKeys(store);

  const webhookSecret = options.webhookSecret ?? store.setting('webhook_secret') ?? `whsec_${randomToken(32)}`;
  store.setSetting('webhook_secret', webhookSecret);
  const webhookUrls = options.webhookUrls ?? (JSON.parse(store.setting('webhook_urls') ?? '[]') as string[]);
  store.setSetting('webhook_urls', JSON.stringify(webhookUrls));
  store.setSetting('time_scale', String(options.timeScale ?? 1));

  const dispatcher = new WebhookDispatcher(store, { secret: webhookSecret, timeScale: options.timeScale ?? 1, log: options.log });
  const events = new EventLog(store, webhookUrls);
  const documentCheckBudget = { ...DEFAULT_DOCUMENT_CHECK_BUDGET, ...definedOnly(options.documentCheckBudget) };
  const processing = new Processing(store, events, {
    delayMs: options.analysisDelayMs ?? 500,
    onEvents: () => dispatcher.wake(),
    dataDir: options.dataDir,
    documentCheckBudget,
  });
  const authenticator = new Authenticator(store);
  const monthlyQuota = options.monthlyQuota ?? PLAN_LIMITS[plan].reportsPerMonth;
  const app: SandboxApp = { store, events, processing, authenticator, plan, monthlyQuota, dispatch: () => dispatcher.wake() };
  const limiter = new RateLimiter(PLAN_LIMITS[plan].perMinute);

  // Last use of each key (part 5.6), written in batches rather than once per request.
  const keyUses = new Map<string, { id: string; at: number; ip: string }>();
  const flushKeyUses = () => {
    if (keyUses.size === 0) return;
    store.markKeysUsed([...keyUses.values()].map((use) => ({ ...use, at: new Date(use.at).toISOString() })));
    keyUses.clear();
  };
  const flushTimer = setInterval(flushKeyUses, KEY_USE_FLUSH_MS);

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const ip = clientAddress(request.socket.remoteAddress);
    const target = request.url ?? '/';
    const queryAt = target.indexOf('?');
    const path = queryAt < 0 ? target : target.slice(0, queryAt);
    let remaining = 0;
    let keyId = '-';
    try {
      let caller;
      try {
        caller = authenticator.authenticate(request.headers.authorization, ip);
      } catch (error) {
        remaining = limiter.take(`ip:${ip}`).remaining;
        throw error;
      }
      keyId = caller.key.id;
      const decision = limiter.take(caller.workspaceId);
      remaining = decision.remaining;
      if (!decision.allowed) {
        throw new HttpError(429, 'rate_limited', `the ${plan} plan allows ${PLAN_LIMITS[plan].perMinute} requests per minute`, undefined, {
          'retry-after': String(decision.retryAfterSeconds),
        });
      }
      keyUses.set(caller.key.id, { id: caller.key.id, at: Date.now(), ip });
      const { route, params } = findRoute(request.method ?? '', path);
      authorise(caller, route.scope);
      if (route.scope === 'admin') flushKeyUses();
      const query = new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1));
      const answer = await route.handle({ app, request, params, query, caller, workspaceId: caller.workspaceId });
      sendJson(response, answer.status, answer.body, { 'x-ratelimit-remaining': remaining });
    } catch (caught) {
      const error = caught instanceof HttpError ? caught : new HttpError(500, 'internal_error', 'the sandbox failed to handle the request');
      if (!(caught instanceof HttpError)) options.log?.(`error: ${(caught as Error).stack ?? String(caught)}`);
      if (!response.headersSent) sendJson(response, error.status, errorBody(error), { ...error.headers, 'x-ratelimit-remaining': remaining });
      else response.destroy();
    }
    options.log?.(`${request.method} ${path} ${response.statusCode} ${(performance.now() - started).toFixed(1)} ms ${keyId}`);
  }

  const deadlines = { ...DEFAULT_CONNECTION_DEADLINES, ...definedOnly(options.connectionDeadlines) };
  // The HTTPS server never listens itself, so Node does not track its connections: this does,
  // to close idle keep-alive connections at once on stop and busy ones when their answer is sent.
  const sockets = new Set<Socket>();
  const busy = new Map<Socket, number>();
  let closing = false;
  const https = createHttpsServer(
    {
      cert: certificate.cert,
      key: certificate.key,
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
      void handle(request, response);
    },
  );
  https.on('secureConnection', (socket: Socket) => socket.on('close', () => busy.delete(socket)));
  // Node enforces headersTimeout and requestTimeout on the connections it tracks, and starts tracking
  // them when the server emits 'listening', which a server that never listens does not.
  https.emit('listening');
  // One port for both: TLS goes to the HTTPS server, anything else is told to use HTTPS.
  const front = createNetServer((socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    // Until the first byte; a plain-HTTP client that does not close after the refusal is closed too.
    socket.setTimeout(deadlines.handshakeMs, () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      if (first[0] === TLS_HANDSHAKE) {
        socket.setTimeout(0);
        https.emit('connection', socket);
      } else {
        socket.end(plainHttpRefusal(limiter.take(`ip:${clientAddress(socket.remoteAddress)}`).remaining));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = front.address() as AddressInfo;

  processing.resume();
  dispatcher.start();

  return {
    url: `https://127.0.0.1:${port}`,
    port,
    dataDir: options.dataDir,
    certPath: certificate.certPath,
    webhookUrls,
    webhookSecret,
    plan,
    firstStart,
    store,
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
      clearInterval(flushTimer);
      await processing.stop();
      await dispatcher.stop();
      flushKeyUses();
      store.close();
    },
  };
}

/** The options given, without those left undefined (which would hide the defaults they are spread over). */
function definedOnly<T extends object>(values: Partial<T> | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(values ?? {}).filter(([, value]) => value !== undefined)) as Partial<T>;
}
