import type { Network } from '../api/network.js';
import type { Clock } from '../core/clock.js';
import { EventEmitter } from 'node:events';
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { BodyTooLarge, INBOUND_SERVER_OPTIONS, MAX_INBOUND_HEADERS, readBody } from '../core/inbound-http.js';
import { claimedEvent, type EventSummary } from './envelope.js';
import { forwardedHeaders } from './forward.js';
import { type AttemptResult, postRaw } from './send.js';
import type { StoreLocation } from '../config/webhook-store.js';
import type { EventIntake, IntakeResult, Takeovers } from './event-intake.js';
import { Intake } from './intake.js';
import { PostgresIntake } from './postgres-intake.js';
import type { ClaimedForward } from './postgres-store.js';
import type { SignatureEncoding, SignedPayload } from './signature.js';
import type { ForwardOutcome, RejectedLimits } from './event-rows.js';
import { type RejectionReason, verifyDelivery } from './verify.js';

interface Faults {
  /** Status of the deliberately bad answers (default 500). */
  status?: number;
  /** Fraction of deliveries answered with `status`, 0 to 1. */
  rate: number;
  /** Milliseconds to hold every answer back. */
  delayMs: number;
}

export interface ListenerOptions {
  host: string;
  port: number;
  tls?: { cert: string; key: string } | undefined;
  secrets: readonly string[];
  toleranceSeconds: number;
  /** The encodings of v1 and what a signature may be taken over (defaults: verifySignature's). */
  encodings?: readonly SignatureEncoding[] | undefined;
  signedPayloads?: readonly SignedPayload[] | undefined;
  /** The event store: a SQLite file, or the PostgreSQL database a fleet of listeners shares. */
  store: StoreLocation;
  /** With PostgreSQL: how long a claim on an event's forwarding holds unless renewed (what a replica that died leaves behind). */
  forwardLeaseMs: number;
  /**
   * The listener's time: when a delivery arrived, when a forward's outcome is recorded, and, with
   * PostgreSQL, when to look for forwards other replicas left (the leases themselves are judged on
   * the database's clock).
   */
  clock: Clock;
  forwardTo?: string | undefined;
  /** The proxies and trust forwards go through. */
  network: Network;
  /** Only verified events of these kinds are forwarded and reported; the others are still stored and acknowledged. */
  eventTypes?: readonly string[] | undefined;
  /** Refuse bodies that differ from openapi.yaml's event schemas, instead of noting it. */
  strictSchema: boolean;
  bodyLimitBytes: number;
  /** How many rejected deliveries are kept, in how many bytes, for how long. */
  rejectedLimits: RejectedLimits;
  faults: Faults;
}

/** What happened to one delivery, reported once it is answered (and forwarded, when it is). */
export interface DeliveryReport {
  kind: 'delivery';
  at: string;
  /**
   * accepted: new and stored; duplicate: its id was stored before; rejected: failed verification
   * (kept as such); injected: answered badly on purpose; store_failed: could not be written. The
   * last two are not stored, and the sender's retry will find them new.
   */
  result: 'accepted' | 'duplicate' | 'rejected' | 'injected' | 'store_failed';
  /** The event, verified when `result` is accepted or duplicate; otherwise what the body claims. */
  event: Partial<EventSummary>;
  reason?: RejectionReason;
  detail?: string;
  /** How a verified body differs from openapi.yaml's event schemas (with --strict-schema, why it was refused). */
  schemaNotes: string[];
  /** The status the sender got. */
  status: number;
  forward: (AttemptResult & { url: string }) | null;
}

/** A request that was no delivery at all: wrong method, too large, unparsable HTTP, too slow. */
export interface RefusalReport {
  kind: 'refused';
  at: string;
  status: number | null;
  detail: string;
  remote: string | undefined;
}

/** The store stopped answering, or answers again (PostgreSQL): reported once per outage. */
interface StoreReport {
  kind: 'store';
  at: string;
  available: boolean;
  detail: string;
}

/**
 * A forward another replica left unfinished (it stopped or died), taken over by this one once its lease
 * expired: forwarded, or, when its row fails the checks of a new delivery, not (`detail` says why).
 */
export interface TakeoverReport {
  kind: 'takeover';
  at: string;
  /** The event, verified when forwarded; otherwise what its row claims. */
  event: Partial<EventSummary>;
  forward: (AttemptResult & { url: string }) | null;
  detail: string | null;
}

/**
 * A forward whose outcome the store could not record: the store still shows the forward as unfinished
 * (`webhooks events --not-forwarded` lists it; with PostgreSQL, another replica takes it over once its
 * lease expires).
 */
interface UnrecordedReport {
  kind: 'unrecorded';
  at: string;
  eventId: string | null;
  outcome: ForwardOutcome;
  /** Why the store did not record it. */
  detail: string;
}

export type ListenerReport = DeliveryReport | RefusalReport | StoreReport | TakeoverReport | UnrecordedReport;

/** Unfinished forwards claimed at a time from replicas that left them. */
const TAKEOVER_BATCH = 16;

const ACCEPTED_ANSWER = JSON.stringify({ received: true });
const DUPLICATE_ANSWER = JSON.stringify({ received: true, duplicate: true });
/** The sender learns nothing of the store's own error (the operator's output has it). */
const STORE_FAILED_MESSAGE = 'the event store is unavailable: the delivery was not stored; send it again';

const CLIENT_ERROR_STATUS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
};

/**
 * The receiver behind `svc webhooks listen`: verifies every delivery and commits it to the store
 * before answering 2xx (both on a worker thread, grouped: see Intake), acknowledges repeats of an
 * event id without storing or forwarding them again, and forwards new events to the application.
 * It reports each delivery as a typed `report` event; rendering is the caller's.
 */
export class WebhookListener extends EventEmitter<{ report: [ListenerReport] }> {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly forwards = new Set<Promise<unknown>>();
  private intake: EventIntake | undefined;
  private takingOver: Promise<void> | undefined;
  private stopping = false;
  /** Aborted when the listener stops: ends the wait for the next look for forwards left by other replicas. */
  private readonly stopped = new AbortController();

  constructor(private readonly options: ListenerOptions) {
    super();
    const handler = (request: IncomingMessage, response: ServerResponse) => void this.handle(request, response);
    this.server = options.tls ? createHttpsServer({ ...INBOUND_SERVER_OPTIONS, ...options.tls }, handler) : createHttpServer(INBOUND_SERVER_OPTIONS, handler);
    this.server.maxHeadersCount = MAX_INBOUND_HEADERS;
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.server.on('clientError', (error: Error & { code?: string }, socket: Socket) => this.refuseConnection(error, socket));
    this.server.on('tlsClientError', (error: Error, socket: Socket) => {
      this.refused(null, `TLS handshake failed: ${error.message}`, socket.remoteAddress);
      socket.destroy();
    });
  }

  async start(): Promise<string> {
    const { options } = this;
    const intake = await this.openIntake();
    this.intake = intake;
    try {
      await new Promise<void>((resolve, reject) => {
        this.server.once('error', reject);
        this.server.listen(options.port, options.host, () => {
          this.server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      await intake.close();
      throw error;
    }
    const { takeovers } = intake;
    if (takeovers) this.takingOver = this.takeOverUntilStopped(intake, takeovers);
    const { port } = this.server.address() as AddressInfo;
    const host = options.host.includes(':') ? `[${options.host}]` : options.host;
    return `${options.tls ? 'https' : 'http'}://${host}:${port}`;
  }

  /**
   * Stops accepting, lets the deliveries under way finish, waits for their forwards, closes the
   * store. Their answers close their connections, so that a sender that keeps its connections
   * busy does not keep the listener running.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const deadline = setTimeout(() => {
      for (const socket of this.sockets) socket.destroy();
    }, INBOUND_SERVER_OPTIONS.requestTimeout);
    await closed;
    clearTimeout(deadline);
    this.stopped.abort();
    this.intake?.stopping();
    await this.takingOver;
    await Promise.allSettled([...this.forwards]);
    await this.intake?.close();
  }

  /** The store the options name: a SQLite file, or the PostgreSQL a fleet shares. */
  private openIntake(): Promise<EventIntake> {
    const { options } = this;
    const intakeOptions = {
      secrets: options.secrets,
      toleranceSeconds: options.toleranceSeconds,
      encodings: options.encodings,
      signedPayloads: options.signedPayloads,
      forwardTo: options.forwardTo,
      eventTypes: options.eventTypes,
      strictSchema: options.strictSchema,
      rejectedLimits: options.rejectedLimits,
    };
    if (options.store.kind === 'sqlite') return Intake.open({ ...intakeOptions, file: options.store.file });
    return PostgresIntake.open({
      ...intakeOptions,
      location: options.store,
      leaseMs: options.forwardLeaseMs,
      clock: options.clock,
      onAvailability: (available, detail) => this.emit('report', { kind: 'store', at: new Date().toISOString(), available, detail }),
    });
  }

  private refused(status: number | null, detail: string, remote: string | undefined): void {
    this.emit('report', { kind: 'refused', at: new Date().toISOString(), status, detail, remote });
  }

  private refuseConnection(error: Error & { code?: string }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, text] = CLIENT_ERROR_STATUS[error.code ?? ''] ?? [400, 'Bad Request'];
    this.refused(status, `${text} (${error.code ?? error.message})`, socket.remoteAddress);
    socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  }

  private answer(response: ServerResponse, status: number, body: object | string, close = false): void {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
    if (close) headers.connection = 'close';
    response.writeHead(status, headers).end(text);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // From its arrival, not the end of its body: the sender's 10 s count from when it sent it.
    const receivedAt = this.options.clock.now();
    const remote = () => request.socket.remoteAddress;
    try {
      if (request.method !== 'POST') {
        response.setHeader('allow', 'POST');
        this.answer(response, 405, { error: { code: 'method_not_allowed', message: 'webhook deliveries are POST requests' } }, true);
        this.refused(405, `${request.method} ${request.url}: only POST is accepted`, remote());
        return;
      }
      let body: Buffer;
      try {
        body = await readBody(request, this.options.bodyLimitBytes);
      } catch (error) {
        if (!(error instanceof BodyTooLarge)) return;
        // Connection: close, since the rest of the body stays unread.
        this.answer(response, 413, { error: { code: 'body_too_large', message: `bodies are limited to ${this.options.bodyLimitBytes} bytes` } }, true);
        this.refused(413, `body larger than ${this.options.bodyLimitBytes} bytes`, remote());
        return;
      }
      const { report, forwarding } = await this.deliver(request.headers, body, receivedAt);
      const { delayMs } = this.options.faults;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const acknowledged = report.status >= 200 && report.status < 300;
      const answer = acknowledged
        ? report.result === 'duplicate'
          ? DUPLICATE_ANSWER
          : ACCEPTED_ANSWER
        : { error: { code: report.reason ?? report.result, message: report.result === 'store_failed' ? STORE_FAILED_MESSAGE : report.detail } };
      this.answer(response, report.status, answer, this.stopping);
      await forwarding;
      this.report(report);
    } catch (error) {
      if (!response.headersSent)
        this.answer(response, 500, { error: { code: 'internal_error', message: 'the receiver failed; the delivery was not stored' } }, true);
      this.refused(500, `internal error: ${(error as Error).message}`, remote());
    }
  }

  private report(report: DeliveryReport): void {
    // Refused deliveries are always reported: what a forged body claims to be is no reason to hide it.
    const verified = report.result === 'accepted' || report.result === 'duplicate';
    if (verified && this.options.eventTypes && !this.options.eventTypes.includes(report.event.type!)) return;
    this.emit('report', report);
  }

  /**
   * Verifies and records one delivery. The status it returns is 2xx only once the event is durable;
   * `forwarding` settles when the application has answered a new event.
   */
  private async deliver(headers: IncomingHttpHeaders, body: Buffer, receivedAt: number): Promise<{ report: DeliveryReport; forwarding?: Promise<void> }> {
    const at = new Date(receivedAt).toISOString();
    const { faults, secrets, toleranceSeconds, encodings, signedPayloads, strictSchema } = this.options;
    if (faults.rate > 0 && Math.random() < faults.rate) {
      const verdict = verifyDelivery(headers, body, { secrets, toleranceSeconds, encodings, signedPayloads, strictSchema });
      const status = faults.status ?? 500;
      const event = verdict.ok ? verdict.event : verdict.claimed;
      return {
        report: {
          kind: 'delivery',
          at,
          result: 'injected',
          event,
          detail: `answered ${status} on purpose; not stored`,
          schemaNotes: verdict.schemaNotes,
          status,
          forward: null,
        },
      };
    }
    let received: IntakeResult;
    try {
      received = await this.intake!.receive({ headers, body, receivedAt });
    } catch (error) {
      // Not stored, so not acknowledged: the sender will retry it.
      return {
        report: {
          kind: 'delivery',
          at,
          result: 'store_failed',
          event: claimedEvent(body),
          detail: `could not store the delivery: ${(error as Error).message}`,
          schemaNotes: [],
          status: 503,
          forward: null,
        },
      };
    }
    if (received.result === 'rejected') {
      const { claimed, reason, detail, schemaNotes } = received;
      return { report: { kind: 'delivery', at, result: 'rejected', event: claimed, reason, detail, schemaNotes, status: 400, forward: null } };
    }
    const report: DeliveryReport = {
      kind: 'delivery',
      at,
      result: received.result,
      event: received.event,
      schemaNotes: received.schemaNotes,
      status: 200,
      forward: null,
    };
    if (received.result === 'duplicate' || received.forwardUrl === null) return { report };
    return { report, forwarding: this.forward(report, received.seq, received.forwardUrl, headers, body) };
  }

  /** Looks for forwards other replicas left unfinished every third of a lease, on the listener's clock, until it stops. */
  private async takeOverUntilStopped(intake: EventIntake, takeovers: Takeovers): Promise<void> {
    const { clock, forwardLeaseMs } = this.options;
    while (!this.stopping) {
      await this.takeOver(intake, takeovers);
      // Rejects when the listener stops, which ends the loop.
      await clock.sleep(forwardLeaseMs / 3, this.stopped.signal).catch(() => undefined);
    }
  }

  /** Forwards, one claim at a time, the events other replicas left unfinished, until none is left. */
  private async takeOver(intake: EventIntake, takeovers: Takeovers): Promise<void> {
    let claims: ClaimedForward[];
    do {
      claims = await takeovers.claimAbandoned(TAKEOVER_BATCH);
      await Promise.all(
        claims.map(async (claim) => {
          const checked = takeovers.checkTakeover(claim);
          if (!checked.ok) {
            const detail = `not forwarded on takeover: ${checked.detail}`;
            const event = { id: claim.eventId ?? undefined, type: claim.type ?? undefined, resourceId: claim.resourceId ?? undefined };
            this.emit('report', { kind: 'takeover', at: new Date().toISOString(), event, forward: null, detail });
            // Recorded as a forward that failed, so that no replica takes it over again and `webhooks events --not-forwarded` lists it.
            await this.record(intake, claim.seq, claim.eventId, { url: claim.forwardUrl, status: null, error: detail });
            return;
          }
          const result = await postRaw(claim.forwardUrl, forwardedHeaders(claim.headers), claim.body, this.options.network);
          this.emit('report', {
            kind: 'takeover',
            at: new Date().toISOString(),
            event: checked.event,
            forward: { url: claim.forwardUrl, ...result },
            detail: null,
          });
          await this.record(intake, claim.seq, claim.eventId, { url: claim.forwardUrl, status: result.status, error: result.error });
        }),
      );
    } while (claims.length > 0 && !this.stopping);
  }

  /** Passes a new event on to the application, after it is stored, and records the answer. */
  private forward(report: DeliveryReport, seq: number, url: string, headers: IncomingHttpHeaders, body: Buffer): Promise<void> {
    const done = postRaw(url, forwardedHeaders(headers), body, this.options.network)
      .then(async (result) => {
        report.forward = { url, ...result };
        await this.record(this.intake!, seq, report.event.id ?? null, { url, status: result.status, error: result.error });
      })
      .finally(() => this.forwards.delete(done));
    this.forwards.add(done);
    return done;
  }

  /** Records a forward's outcome; one the store cannot record is reported, never dropped unsaid. */
  private async record(intake: EventIntake, seq: number, eventId: string | null, outcome: ForwardOutcome): Promise<void> {
    try {
      await intake.recordForward(seq, outcome, this.options.clock.now());
    } catch (error) {
      this.emit('report', { kind: 'unrecorded', at: new Date().toISOString(), eventId, outcome, detail: (error as Error).message });
    }
  }
}
