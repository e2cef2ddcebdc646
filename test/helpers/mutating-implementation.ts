/**
 * A test implementation for the contract kit's accuracy test: the real sandbox behind an HTTPS
 * proxy (with its own certificate) that breaks exactly one stated rule, or makes other choices
 * where the specification says "not shown", and a webhook hub that relays the sandbox's events to
 * each kit under test, changed the same way and signed again.
 */
import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import type { Clock } from '../../src/core/clock.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import type { TestSandbox } from './sandbox.js';
import { makeCertificate } from './tls.js';

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ProxiedResponse {
  status: number;
  headers: Record<string, string>;
  /** The body as JSON when it is JSON; set `json` to change it (undefined: no body). */
  json: unknown;
  text: string;
}

export interface RelayedEvent {
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** What the proxy and the hub know of the sandbox's keys, and learn on the way. */
export interface ProxyState {
  keys: TestSandbox['keys'];
  /** Secrets of keys made through POST /v1/keys, by key id. */
  created: Map<string, string>;
  revoked: Set<string>;
  /** The workspace of each applicant made through the proxy: `main` or `other`. */
  applicants: Map<string, 'main' | 'other'>;
  secret: string;
}

/** Sends one delivery attempt (numbered from 1) to the kit and returns its status; 599 when it gave none in time. */
export type SendAttempt = (attempt: number) => Promise<number>;

export interface Variant {
  name: string;
  /** What it changes, for the matrix. */
  change: string;
  /** The checks that must fail at level spec, exactly; empty for a variant that makes other "not shown" choices and must pass. */
  breaks: string[];
  /** Checks that must be inconclusive, exactly (a setup the kit cannot make because of what the variant breaks). */
  inconclusive?: string[];
  /** What some inconclusive checks must say of it. */
  reasons?: Record<string, RegExp>;
  /** What the variant answered of its own that the kit had to come through (a gateway's blips): a passing row proves nothing unless there was some. */
  served?: string[];
  /**
   * The kit is given the webhook secret although it cannot verify the variant's signatures, as an
   * operator who holds the right secret would: every delivery is then noise, never evidence.
   */
  givenSecret?: boolean;
  /** For a variant that must pass: the checks it leaves nothing to judge (skipped), exactly. */
  skips?: string[];
  /** For a variant that must pass: what some checks must say of it. */
  notes?: Record<string, RegExp>;
  /** Checks that must be skipped, and why (a part of a rule the run did not observe is named, never passed). */
  skipReasons?: Record<string, RegExp>;
  /** Needs a run without --fast (the 30 s redeliveries, the provoked 429). */
  slow?: boolean;
  /** The kit is asked to provoke a 429 (`--provoke-429`): the variant's workspace is the kit's alone. */
  provoke429?: boolean;
  /** The time the kit and the variant's rate limit share: one that moves only when the kit waits keeps the limit independent of the machine's speed. */
  clock?: Clock;
  /** The checks the kit runs (`--only`); by default all, and the event checks for a broken slow variant. */
  only?: string[] | undefined;
  /** Plain HTTP on the port is served instead of refused. */
  plainHttp?: boolean;
  /** The refusal of plain HTTP carries no X-RateLimit-Remaining. */
  plainHttpWithoutRemaining?: boolean;
  /** The fixtures file the kit is run with (YAML), for an implementation with shapes of its own. */
  fixtures?: string;
  /** The kit's receiver speaks HTTPS; the hub delivers only to HTTPS subscribers. */
  httpsSubscribers?: boolean;
  /** Keys are made only in the dashboard: the run gets a key to revoke made outside the API. */
  dashboardKeys?: boolean;
  /** Each delivery attempt carries its number in the envelope (`attempt`). */
  attemptCounter?: boolean;
  /** How long the hub waits for the kit's answer (part 6: 10 s). */
  answerTimeoutMs?: number;
  /** Changes the request, or answers it without the sandbox. */
  request?(request: ProxiedRequest, state: ProxyState): void | { status: number; headers?: Record<string, string>; json?: unknown };
  response?(response: ProxiedResponse, request: ProxiedRequest, state: ProxyState): void;
  /** Changes an event before it reaches the kit; 'drop' keeps it from the kit. */
  event?(event: RelayedEvent, state: ProxyState): void | 'drop';
  /** Signs an event body in another way than the sandbox's. */
  sign?(secret: string, body: string): Record<string, string>;
  /** Delivers the event to the kit, retrying as it likes (default: one attempt). */
  deliver?(send: SendAttempt): Promise<void>;
}

/** Retries once, `delayMs` after the first attempt began, when `retryOn` the first answer. */
export function retrying(delayMs: number, retryOn: (status: number) => boolean): (send: SendAttempt) => Promise<void> {
  return async (send) => {
    const started = Date.now();
    if (!retryOn(await send(1))) return;
    await sleep(Math.max(0, started + delayMs - Date.now()));
    await send(2);
  };
}

function bearer(headers: Record<string, string>): string | undefined {
  const match = /^Bearer (\S+)$/.exec(headers.authorization ?? '');
  return match?.[1];
}

export function keyRole(state: ProxyState, headers: Record<string, string>): string | undefined {
  const key = bearer(headers);
  if (!key) return undefined;
  for (const [role, secret] of Object.entries(state.keys)) if (secret === key) return role;
  for (const [id, secret] of state.created) if (secret === key) return `created:${id}`;
  return 'unknown';
}

function readBody(incoming: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => resolve(Buffer.concat(chunks)));
    incoming.on('error', reject);
  });
}

function flat(headers: IncomingMessage['headers'] | Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

export interface MutatingImplementation {
  baseUrl: string;
  caCertPath: string;
  close(): Promise<void>;
}

/** The sandbox behind an HTTPS proxy that applies `variant`; plain HTTP on the same port is refused (400 https_required) unless the variant serves it. */
export async function startMutatingImplementation(sandbox: TestSandbox, variant: Variant, state: ProxyState): Promise<MutatingImplementation> {
  const certificate = await makeCertificate();
  const dir = mkdtempSync(join(tmpdir(), 'svc-mutating-'));
  const caCertPath = join(dir, 'ca.pem');
  writeFileSync(caCertPath, certificate.cert);
  const upstream = new Agent({ connect: { ca: readFileSync(sandbox.caCert, 'utf8') } });
  // The answers the proxy makes itself count as the sandbox's do: a count far below the last one would tell the kit its window is nearly spent.
  let remaining = '999';

  async function handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const proxied: ProxiedRequest = {
      method: incoming.method ?? 'GET',
      path: incoming.url ?? '/',
      headers: flat(incoming.headers),
      body: await readBody(incoming),
    };
    const answered = variant.request?.(proxied, state);
    if (answered) {
      const body = answered.json === undefined ? '' : JSON.stringify(answered.json);
      outgoing.writeHead(answered.status, { 'content-type': 'application/json', 'x-ratelimit-remaining': remaining, ...answered.headers }).end(body);
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(proxied.headers)) if (!HOP.has(name)) headers[name] = value;
    const answer = await request(`${sandbox.url}${proxied.path}`, {
      method: proxied.method as 'GET',
      headers,
      body: proxied.body.length > 0 ? proxied.body : undefined,
      dispatcher: upstream,
    });
    const text = await answer.body.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const response: ProxiedResponse = { status: answer.statusCode, headers: flat(answer.headers), json, text };
    remaining = response.headers['x-ratelimit-remaining'] ?? remaining;
    learn(proxied, response, state);
    const before = JSON.stringify(response.json);
    variant.response?.(response, proxied, state);
    const changed = JSON.stringify(response.json) !== before;
    const body = changed ? (response.json === undefined ? '' : JSON.stringify(response.json)) : response.text;
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) if (!HOP.has(name)) out[name] = value;
    outgoing.writeHead(response.status, out).end(body);
  }
  const listener = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    handle(incoming, outgoing).catch((error: Error) => outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(error.message));
  };
  const https = createHttpsServer({ key: certificate.key, cert: certificate.cert }, listener);
  const plain = createHttpServer(listener);
  const sockets = new Set<Socket>();
  const front = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      if (first[0] === 0x16) https.emit('connection', socket);
      else if (variant.plainHttp) {
        plain.emit('connection', socket);
        socket.resume();
      } else {
        const body = JSON.stringify({ error: { code: 'https_required', message: 'use https://' } });
        const remainingLine = variant.plainHttpWithoutRemaining ? '' : `X-RateLimit-Remaining: ${remaining}\r\n`;
        socket.end(
          `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${remainingLine}Connection: close\r\n\r\n${body}`,
        );
      }
    });
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `https://127.0.0.1:${(front.address() as AddressInfo).port}`,
    caCertPath,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await upstream.close();
    },
  };
}

/** Keeps the secrets of keys made through the API, which were revoked, and the workspace of each applicant, for the variants that misuse them. */
function learn(request: ProxiedRequest, response: ProxiedResponse, state: ProxyState): void {
  if (response.status >= 300) return;
  const body = response.json as { id?: string; secret?: string } | undefined;
  if (request.method === 'POST' && request.path === '/v1/keys' && body?.id && body.secret) state.created.set(body.id, body.secret);
  const role = keyRole(state, request.headers);
  if (request.method === 'POST' && request.path === '/v1/applicants' && body?.id) state.applicants.set(body.id, role === 'other_workspace' ? 'other' : 'main');
  const revoked = /^\/v1\/keys\/(key_\w+)$/.exec(request.path);
  if (request.method === 'DELETE' && revoked) state.revoked.add(revoked[1]!);
}

interface HubTarget {
  port: number;
  variant: Variant;
  state: ProxyState;
  /** The certificate of the kit's receiver when it speaks HTTPS. */
  ca?: string | undefined;
}

export interface WebhookHub {
  url: string;
  /** The hub's attempts that the kit did not answer 2xx, by variant: a missed event may be one of them. */
  unanswered(variant: string): string[];
  /** Relays every event from now on to the kit listening on `port`, changed by the variant; returns the unsubscribe function. */
  add(target: HubTarget): () => void;
  close(): Promise<void>;
}

/**
 * The hub's front, in a thread of its own: it answers the sandbox at once and passes each delivery
 * on. The test's own thread runs the proxies, and on a loaded machine it can fall more than the
 * sandbox's 10 s behind; the sandbox would then retry 30 s later, past the kit's wait for the event.
 */
const HUB_FRONT = `
const { parentPort } = require('node:worker_threads');
const { createServer } = require('node:http');
const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    response.writeHead(200).end();
    parentPort.postMessage({ raw: Buffer.concat(chunks), headers: request.headers });
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

/** The sandbox's one subscriber: it relays each event to every kit under test, through its variant, signed again. */
export async function startWebhookHub(): Promise<WebhookHub> {
  const targets = new Set<HubTarget>();
  const unanswered: { variant: string; line: string }[] = [];
  // Each event once: a sandbox retry is not relayed again, for redelivery is each variant's business (Variant.deliver).
  const relayed = new Set<string>();
  const front = new Worker(HUB_FRONT, { eval: true });
  front.on('message', (message: { raw: Uint8Array; headers: IncomingMessage['headers'] }) => {
    if (!message.raw) return;
    const raw = Buffer.from(message.raw);
    const id = String((JSON.parse(raw.toString('utf8')) as { id?: unknown }).id);
    if (relayed.has(id)) return;
    relayed.add(id);
    const headers = flat(message.headers);
    void Promise.all([...targets].map((target) => relay(target, raw, headers)));
  });
  const port = await new Promise<number>((resolve, reject) => {
    front.once('error', reject);
    front.on('message', (message: { port?: number }) => message.port !== undefined && resolve(message.port));
  });
  async function relay(target: HubTarget, raw: Buffer, headers: Record<string, string>): Promise<void> {
    const { variant } = target;
    if (variant.httpsSubscribers && !target.ca) return;
    const event: RelayedEvent = {
      body: JSON.parse(raw.toString('utf8')),
      headers: { 'content-type': headers['content-type'] ?? 'application/json', 'service-event': headers['service-event'] ?? '' },
    };
    const before = JSON.stringify(event.body);
    if (variant.event?.(event, target.state) === 'drop') return;
    const changed = JSON.stringify(event.body) !== before;
    const url = `${target.ca ? 'https' : 'http'}://127.0.0.1:${target.port}/`;
    const dispatcher = target.ca ? new Agent({ connect: { ca: target.ca } }) : undefined;
    const send: SendAttempt = async (attempt) => {
      const body = variant.attemptCounter ? JSON.stringify({ ...event.body, attempt }) : changed ? JSON.stringify(event.body) : raw.toString('utf8');
      const signature = variant.sign ? variant.sign(target.state.secret, body) : { 'service-signature': signatureHeader(target.state.secret, body) };
      const started = performance.now();
      const note = (outcome: string) =>
        unanswered.push({
          variant: variant.name,
          line: `${String(event.body.type)} ${String(event.body.id)} attempt ${attempt}: ${outcome} after ${Math.round(performance.now() - started)} ms`,
        });
      try {
        const answer = await request(url, {
          method: 'POST',
          headers: { ...event.headers, ...signature },
          body,
          dispatcher,
          signal: AbortSignal.timeout(variant.answerTimeoutMs ?? 10_000),
        });
        await answer.body.dump();
        if (answer.statusCode >= 300) note(String(answer.statusCode));
        return answer.statusCode;
      } catch (error) {
        note(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
        return 599;
      }
    };
    try {
      await (variant.deliver ? variant.deliver(send) : send(1));
    } finally {
      await dispatcher?.close();
    }
  }
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    unanswered: (variant) => unanswered.filter((item) => item.variant === variant).map((item) => item.line),
    add(target) {
      targets.add(target);
      return () => targets.delete(target);
    },
    close: async () => void (await front.terminate()),
  };
}

export function hmacBase64(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('base64');
}
