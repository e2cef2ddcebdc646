import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ensureSelfSignedCertificate } from '../core/certificate.js';
import { type Clock, systemClock } from '../core/clock.js';
import { SvcError } from '../core/errors.js';
import { BodyTooLarge, DEFAULT_BODY_LIMIT, INBOUND_SERVER_OPTIONS, MAX_INBOUND_HEADERS, readBody } from '../core/inbound-http.js';
import { SIGNATURE_ENCODINGS, type SignatureEncoding, type SignatureFailure } from '../webhooks/signature.js';
import { closeServer } from './http.js';
import { authenticates, noiseReason, readSignatures, type SignatureReading } from './signature-readings.js';
import { MESSAGE_OVERHEAD, PARSED_BODY_FACTOR } from './kept-cost.js';
import { CheckFailure, type Finding, SetupError } from './outcome.js';

/**
 * What the kit keeps of a run's deliveries at most, each counted as `costOf` says (a run against the
 * sandbox keeps some twenty deliveries, under 1 MiB as counted). Beyond, a delivery is answered 503
 * and counted as noise: a genuine one is then retried (part 6), and a sender learns it was not taken.
 */
export const KEPT_LIMITS = { bytes: 32 * 1024 * 1024, deliveries: 10_000 };

/** What the bound counts for a delivery: its headers, its body as bytes and as text (up to two bytes a character), the parsed body, an overhead. */
function costOf(rawHeaders: string[], raw: Buffer, json: unknown): number {
  const headers = rawHeaders.reduce((sum, item) => sum + item.length, 0);
  return MESSAGE_OVERHEAD + headers + raw.length * (3 + (json === undefined ? 0 : PARSED_BODY_FACTOR));
}

/** Why a delivery was set aside: its signature did not verify with the webhook secret, or the receiver kept all it may. */
export type NoiseReason = SignatureFailure | 'receiver_full';

/** One webhook delivery as it arrived at the kit: the raw bytes (signatures are over them) and what the kit answered. */
export interface Delivery {
  seq: number;
  /** Milliseconds since the epoch. */
  at: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: unknown;
  /** The status the kit answered with. */
  answered: number;
  /** Milliseconds the kit held its answer back. */
  heldMs: number;
  /**
   * Given the webhook secret, what the kit makes of every v1 of every signature header (an HMAC
   * keyed with the secret under another hash than SHA-256 authenticates the delivery too: only a
   * holder of the secret makes one); empty without the secret.
   */
  signatures: SignatureReading[];
}

export interface EventView {
  id: string | undefined;
  type: string | undefined;
  data: unknown;
}

/** The envelope fields of a delivery, whatever its shape. */
export function eventOf(delivery: Delivery): EventView {
  const body = delivery.json;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { id: undefined, type: undefined, data: undefined };
  const record = body as Record<string, unknown>;
  return {
    id: typeof record.id === 'string' ? record.id : undefined,
    type: typeof record.type === 'string' ? record.type : undefined,
    data: record.data,
  };
}

/** Whether `value` holds `needle` as a string anywhere inside it (payload shapes are not shown, so ids are looked for everywhere). */
export function mentions(value: unknown, needle: string): boolean {
  if (typeof value === 'string') return value === needle;
  if (Array.isArray(value)) return value.some((item) => mentions(item, needle));
  if (typeof value === 'object' && value !== null) return Object.values(value).some((item) => mentions(item, needle));
  return false;
}

/**
 * Whether `value` names another resource of the kind of `id`, and not `id` itself: a string with the
 * same prefix (`rep_`, `doc_`). Where pipelines share the deployment's subscription, a delivery may
 * be about another pipeline's resource; an id without a prefix tells nothing.
 */
export function namesAnother(value: unknown, id: string): boolean {
  const prefix = /^[a-z]+_/i.exec(id)?.[0];
  if (!prefix || mentions(value, id)) return false;
  const hasPrefix = (item: unknown): boolean => {
    if (typeof item === 'string') return item.startsWith(prefix) && item.length > prefix.length;
    if (Array.isArray(item)) return item.some(hasPrefix);
    if (typeof item === 'object' && item !== null) return Object.values(item).some(hasPrefix);
    return false;
  };
  return hasPrefix(value);
}

/** How to answer a delivery: a status, or a status given only after holding the answer back. */
export type Answer = number | { status: number; holdMs: number };

type Rule = (delivery: Delivery) => Answer | undefined;

export interface ReceiverCertificate {
  cert: string;
  key: string;
  /** Where the implementation finds the certificate to trust. */
  certPath: string;
}

/**
 * The certificate of `--webhook-tls`: made by the kit for this machine's names and kept in the
 * data directory, so that an implementation trusts it once for every later run.
 */
export async function kitReceiverCertificate(dataDir: string): Promise<ReceiverCertificate> {
  const made = await ensureSelfSignedCertificate(join(dataDir, 'contract', 'webhook-tls'), 'svc contract verify webhook receiver', [
    'localhost',
    '127.0.0.1',
    '::1',
    hostname(),
  ]);
  return { cert: made.cert, key: made.key, certPath: made.certPath };
}

export interface ReceiverOptions {
  /** The webhook secret: only deliveries whose signature verifies with it are kept, as evidence. */
  secret?: string | undefined;
  /** The v1 encodings a signature may have (`--signature-encoding` pins one). */
  encodings?: readonly SignatureEncoding[] | undefined;
  limits?: typeof KEPT_LIMITS;
  /** The time its waits run on (a test's, to follow them without waiting). */
  clock?: Clock;
}

/**
 * The kit's webhook subscriber on `--webhook-port`, on loopback unless `--webhook-host` says
 * otherwise, in plain HTTP or (with a certificate) HTTPS: records each delivery and answers 200,
 * unless a check asked for another answer to one (the redelivery probes). Anyone who can reach the
 * port can send to it: given the webhook secret, it keeps only deliveries a v1 of whose signature
 * headers (either name) verifies or is an HMAC keyed with the secret under another hash, each v1
 * read and kept with the delivery, and sets the others aside as noise (answered 400, counted, never evidence); it has the listener's
 * limits (bounded headers and body, slow clients cut off) and a bound on what the run keeps in memory.
 */
export class WebhookReceiver {
  /** The deliveries the checks judge: with the secret, only those whose signature verifies. */
  readonly deliveries: Delivery[] = [];
  /** How many deliveries were set aside, by reason: never evidence, never kept. */
  readonly noise = new Map<NoiseReason, number>();
  scheme: 'http' | 'https' = 'http';
  /** Where it listens, once it does: the address and the port. */
  private listening: { host: string; port: number } | undefined;
  private listeningSince = 0;
  private server: Server | undefined;
  /** Once closed, every wait for a delivery ends: the run is over, or stopped. */
  private closed = false;
  private keptBytes = 0;
  private readonly secret: string | undefined;
  private readonly encodings: readonly SignatureEncoding[];
  private readonly limits: typeof KEPT_LIMITS;
  private readonly rules = new Set<Rule>();
  private readonly waiters = new Set<() => void>();
  private readonly held = new Set<NodeJS.Timeout>();
  private readonly clock: Clock;

  constructor(options: ReceiverOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.secret = options.secret || undefined;
    this.encodings = options.encodings ?? SIGNATURE_ENCODINGS;
    this.limits = options.limits ?? KEPT_LIMITS;
  }

  /** Whether deliveries are authenticated (the secret was given): without, anyone who reaches the port supplies evidence. */
  get authenticated(): boolean {
    return this.secret !== undefined;
  }

  /** Whether anything at all reached the receiver in the run, kept or set aside. */
  get reached(): boolean {
    return this.deliveries.length > 0 || this.noiseCount > 0;
  }

  get noiseCount(): number {
    return [...this.noise.values()].reduce((sum, count) => sum + count, 0);
  }

  /** The noise by reason: `signature_mismatch 30, missing_header 7`. */
  private noiseReasons(): string {
    return [...this.noise].map(([reason, count]) => `${reason} ${count.toLocaleString('en')}`).join(', ');
  }

  /**
   * The URL the implementation delivers to: the receiver's address, or `<this host>` for all of the
   * machine's (the implementation reaches it by a name or address of the runner's).
   */
  get url(): string {
    const { host, port } = this.listening ?? { host: '127.0.0.1', port: 0 };
    const shown = host === '0.0.0.0' || host === '::' ? '<this host>' : host.includes(':') ? `[${host}]` : host;
    return `${this.scheme}://${shown}:${port}/`;
  }

  /**
   * What it means that no delivery a check awaits was kept. Nothing at all reached the receiver in
   * the run, kept or set aside: no evidence against the implementation, whose subscription may
   * deliver elsewhere (another pipeline's receiver), so the check is inconclusive. Deliveries were
   * kept (about the kit's resources or others', as every pipeline's reach a receiver its deployment
   * fans out to) and none set aside: the subscription reaches the kit, and the one awaited did not
   * come, a failure. Some were set aside as noise: the awaited one may be among them, so the check
   * is inconclusive: noise never passes nor fails a check.
   */
  absence(finding: Finding): CheckFailure | SetupError {
    const noise = this.noiseCount;
    if (noise === 0 && this.deliveries.length > 0) return new CheckFailure([finding]);
    const found = `expected ${finding.expected}; got ${finding.got}${finding.request ? ` (${finding.request})` : ''}`;
    if (noise === 0) {
      return new SetupError(
        `${found}; nothing at all arrived at the kit's receiver (${this.url}) during the run (${Math.round((this.clock.now() - this.listeningSince) / 1000)} s so far), so the kit has no evidence that the implementation delivers there`,
        `subscribe ${this.url} to the implementation's events, at an address it reaches (--webhook-host: the address the receiver listens on), one subscription per pipeline: kits that run at once against one deployment each receive only what is delivered to their own receiver`,
      );
    }
    const full = this.noise.get('receiver_full') ?? 0;
    const fixes: string[] = [];
    if (noise > full) fixes.push('if the implementation sent them, give the secret it signs with in --webhook-secret');
    if (full > 0)
      fixes.push(
        `the receiver keeps at most ${this.limits.deliveries.toLocaleString('en')} deliveries and ${this.limits.bytes / 1024 / 1024} MiB in a run${this.authenticated ? '' : ', and with --webhook-secret only authenticated ones'}`,
      );
    return new SetupError(
      `${found}; the receiver set aside ${noise.toLocaleString('en')} deliveries of the run as noise (${this.noiseReasons()}), so it may have been among them`,
      fixes.join('; '),
    );
  }

  /** Answers and counts a delivery that is not kept; the connection stays open, so that a flood costs no new connection each. */
  private setAside(response: ServerResponse, reason: NoiseReason, status: number, text: string): void {
    this.noise.set(reason, (this.noise.get(reason) ?? 0) + 1);
    response.writeHead(status, { 'content-type': 'text/plain' }).end(text);
  }

  private full(cost: number): boolean {
    return this.deliveries.length >= this.limits.deliveries || this.keptBytes + cost > this.limits.bytes;
  }

  private receive(request: IncomingMessage, response: ServerResponse): void {
    if (this.full(MESSAGE_OVERHEAD)) return this.setAside(response, 'receiver_full', 503, 'the kit keeps no more deliveries in this run');
    readBody(request, DEFAULT_BODY_LIMIT).then(
      (raw) => this.record(request, response, raw),
      (error: Error) => {
        if (error instanceof BodyTooLarge)
          response.writeHead(413, { 'content-type': 'text/plain', connection: 'close' }).end(`bodies are limited to ${DEFAULT_BODY_LIMIT} bytes`);
      },
    );
  }

  private record(request: IncomingMessage, response: ServerResponse, raw: Buffer): void {
    // Authentic is what the secret signed, under either header name, in any form level spec takes: the
    // signed string and v1's encoding are not shown, and how old the signature is says nothing of who
    // made it. An HMAC with the secret under another hash is evidence too: of a wrong signature
    // (events.signature-valid fails on it).
    const signatures = this.secret === undefined ? [] : readSignatures(request.headers, raw, this.secret);
    if (this.secret !== undefined && !authenticates(signatures, this.encodings)) {
      const reason = noiseReason(signatures);
      return this.setAside(response, reason, 400, `the signature does not verify with the kit's webhook secret: ${reason}`);
    }
    const text = raw.toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const cost = costOf(request.rawHeaders, raw, json);
    if (this.full(cost)) return this.setAside(response, 'receiver_full', 503, 'the kit keeps no more deliveries in this run');
    this.keptBytes += cost;
    const delivery: Delivery = {
      seq: this.deliveries.length,
      at: this.clock.now(),
      method: request.method ?? '',
      path: request.url ?? '/',
      headers: request.headers,
      raw,
      text,
      json,
      answered: 200,
      heldMs: 0,
      signatures,
    };
    for (const rule of this.rules) {
      const answer = rule(delivery);
      if (answer === undefined) continue;
      delivery.answered = typeof answer === 'number' ? answer : answer.status;
      delivery.heldMs = typeof answer === 'number' ? 0 : answer.holdMs;
    }
    this.deliveries.push(delivery);
    const reply = () => {
      if (!response.destroyed) response.writeHead(delivery.answered, { 'content-type': 'text/plain' }).end(delivery.answered < 300 ? 'ok' : 'not now');
    };
    if (delivery.heldMs > 0) this.held.add(setTimeout(reply, delivery.heldMs));
    else reply();
    for (const wake of this.waiters) wake();
  }

  /** Listens on `host`:`port` (0: any free port), with TLS when given a certificate and its key; returns the port. */
  async start(port: number, host: string, tls?: { cert: string; key: string }): Promise<number> {
    const handler = (request: IncomingMessage, response: ServerResponse) => this.receive(request, response);
    const server = tls ? createHttpsServer({ ...INBOUND_SERVER_OPTIONS, ...tls }, handler) : createHttpServer(INBOUND_SERVER_OPTIONS, handler);
    server.maxHeadersCount = MAX_INBOUND_HEADERS;
    this.scheme = tls ? 'https' : 'http';
    server.keepAliveTimeout = 1_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new SvcError(
            'config',
            'webhook_port_unavailable',
            `cannot listen on ${host}:${port} for webhooks: ${error.code ?? error.message}`,
            error.code === 'EADDRINUSE'
              ? `another process listens there: another pipeline's kit on the same runner? Give each pipeline its own --webhook-port, and the implementation a subscription to each (one per pipeline, or one fanned out to all): a kit judges only what reaches its own receiver`
              : 'give an address of this machine with --webhook-host (0.0.0.0: all of them), and a port it may listen on with --webhook-port',
          ),
        ),
      );
      server.listen(port, host, () => resolve());
    });
    this.listening = { host, port: (server.address() as AddressInfo).port };
    this.listeningSince = this.clock.now();
    return this.listening.port;
  }

  /** Decides the answer to later deliveries; returns a function that removes the rule. */
  answerWith(rule: Rule): () => void {
    this.rules.add(rule);
    return () => this.rules.delete(rule);
  }

  /** The first delivery from `since` on that satisfies `predicate`, waiting up to `timeoutMs`. */
  waitFor(predicate: (delivery: Delivery) => boolean, timeoutMs: number, since = 0): Promise<Delivery | undefined> {
    const deadline = this.clock.now() + timeoutMs;
    return this.waitUntil(predicate, () => deadline, since);
  }

  /**
   * The event a check awaits, as `waitFor`; but while nothing at all has reached the receiver, the
   * wait ends `timeoutMs` after it began listening: a kit the implementation does not deliver to
   * (its subscription another pipeline's) does not wait out each check's timeout in turn.
   */
  waitForEvent(predicate: (delivery: Delivery) => boolean, timeoutMs: number, since = 0): Promise<Delivery | undefined> {
    const deadline = this.clock.now() + timeoutMs;
    const quietEnd = this.listeningSince + timeoutMs;
    return this.waitUntil(predicate, () => (this.reached ? deadline : Math.min(deadline, quietEnd)), since);
  }

  /**
   * Waits, as `waitForEvent`, until each wait has its delivery from its `since` on, or `timeoutMs`
   * passed: one timeout for them all, so that events that never come cost it once, not once each.
   */
  async waitForEach(waits: ReadonlyArray<{ predicate: (delivery: Delivery) => boolean; since: number }>, timeoutMs: number): Promise<void> {
    const deadline = this.clock.now() + timeoutMs;
    for (const { predicate, since } of waits) await this.waitForEvent(predicate, Math.max(0, deadline - this.clock.now()), since);
  }

  private async waitUntil(predicate: (delivery: Delivery) => boolean, end: () => number, since: number): Promise<Delivery | undefined> {
    // Each delivery is looked at once: a flood of deliveries does not make every wake-up scan them all again.
    for (let next = since; ;) {
      for (; next < this.deliveries.length; next++) if (predicate(this.deliveries[next]!)) return this.deliveries[next];
      const left = end() - this.clock.now();
      if (left <= 0 || this.closed) return undefined;
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          resolve();
        };
        this.waiters.add(wake);
        void this.clock.sleep(Math.min(left, 1_000)).then(wake);
      });
    }
  }

  close(): Promise<void> {
    this.closed = true;
    for (const wake of this.waiters) wake();
    for (const timer of this.held) clearTimeout(timer);
    return closeServer(this.server);
  }
}
