import { createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { StoreLocation } from '../config/webhook-store.js';
import type { Clock } from '../core/clock.js';
import { INBOUND_SERVER_OPTIONS } from '../core/inbound-http.js';
import type { EventSummary } from './envelope.js';
import {
  type Delivery,
  type EventIntake,
  type EventIntakeOptions,
  type IntakeResult,
  MAX_WRITES_PER_TRANSACTION,
  REJECTED_EXPIRY_INTERVAL_MS,
  type Takeovers,
} from './event-intake.js';
import { type ClaimedForward, PostgresEventStore, refusedForItsRows, type Write, type Written } from './postgres-store.js';
import { firstBytes, type ForwardOutcome, REJECTED_BODY_BYTES } from './event-rows.js';
import { verifyDelivery } from './verify.js';

export interface PostgresIntakeOptions extends EventIntakeOptions {
  location: Extract<StoreLocation, { kind: 'postgres' }>;
  /** How long a claim on an event's forwarding holds unless renewed: the time another replica waits for one that died. */
  leaseMs: number;
  /** Told once when the database stops answering, once when it answers again. */
  onAvailability: (available: boolean, detail: string) => void;
  /**
   * This replica's time: since when the database has answered it, how long it retries recording an
   * outcome, when a delivery is answered 503. Not the leases': they are judged on the database's clock.
   */
  clock: Clock;
}

/** How long to wait before recording a forward's outcome again while the database does not answer. */
const RECORD_RETRY_MS = 1000;
/** How long a stopping listener keeps trying to record its forwards' outcomes; after that, their leases expire and another replica forwards them again. */
const RECORD_RETRY_WHEN_STOPPING_MS = 10_000;
/** A delivery whose COMMIT has not returned this long after it arrived is answered 503: the service waits 10 s for an answer (part 6). */
const ANSWER_WITHIN_MS = 8000;
/** The database gives up a statement after this (a lock it waits for, a server too slow), in time for the answer. */
const STATEMENT_TIMEOUT_MS = 5000;
/**
 * Bytes of the deliveries waiting for the database, those being written included; past them, a genuine
 * delivery is answered 503 at once and a rejected one is not kept. Each counts its body (a rejected one
 * only what is kept of it) and the most its headers may take.
 */
export const MAX_QUEUED_BYTES = 64 * 1024 * 1024;

interface Queued {
  write: Write;
  bytes: number;
  resolve: (written: Written) => void;
  reject: (error: Error) => void;
}

const bytesOf = (write: Write) =>
  (write.op === 'accept' ? write.delivery.body.byteLength : write.delivery.kept.byteLength) + INBOUND_SERVER_OPTIONS.maxHeaderSize;

/**
 * Verifies deliveries and records them in PostgreSQL, for one replica of a fleet. Group commit: the
 * deliveries that arrive while a transaction is under way share the next one, and each answer waits
 * for its COMMIT. Verification is light enough for this thread; the database does the storing.
 */
export class PostgresIntake implements EventIntake, Takeovers {
  /** This process, as its claims name it. */
  readonly replica = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  /** Its own: a fleet's listeners take over what one of them left. */
  readonly takeovers: Takeovers = this;
  private readonly keys: KeyObject[];
  private queue: Queued[] = [];
  /** Of the deliveries queued or being written. */
  private queuedBytes = 0;
  private writing: Promise<void> | undefined;
  /** The events this replica is forwarding: their leases are renewed until their outcome is recorded. */
  private readonly claimed = new Set<number>();
  private readonly renewal: NodeJS.Timeout;
  /** A renewal under way: the next waits for it rather than queue behind it. */
  private renewing = false;
  private readonly expiry: NodeJS.Timeout;
  /** Set when the listener stops: recording a forward's outcome is given up after it. */
  private recordDeadline: number | undefined;
  private available = true;
  /** Since when the database has answered this replica without a break. */
  private availableSince: number;
  private closed = false;

  private constructor(
    private readonly store: PostgresEventStore,
    private readonly options: PostgresIntakeOptions,
  ) {
    this.keys = options.secrets.map((secret) => createSecretKey(secret, 'utf8'));
    this.availableSince = options.clock.now();
    this.renewal = setInterval(() => void this.renewLeases(), options.leaseMs / 3);
    this.expiry = setInterval(() => void this.trimRejected(), REJECTED_EXPIRY_INTERVAL_MS);
    void this.trimRejected();
  }

  static async open(options: PostgresIntakeOptions): Promise<PostgresIntake> {
    return new PostgresIntake(await PostgresEventStore.open(options.location, { statementTimeoutMs: STATEMENT_TIMEOUT_MS }), options);
  }

  /**
   * Resolves once the delivery is verified and, when accepted, committed; rejects when it was not
   * committed by ANSWER_WITHIN_MS after it arrived. A rejected delivery is answered at once, what is
   * kept of it left to be written.
   */
  async receive(delivery: Delivery): Promise<IntakeResult> {
    const { options } = this;
    const verdict = verifyDelivery(delivery.headers, delivery.body, {
      secrets: this.keys,
      toleranceSeconds: options.toleranceSeconds,
      encodings: options.encodings,
      signedPayloads: options.signedPayloads,
      strictSchema: options.strictSchema,
    });
    if (!verdict.ok) {
      // Kept for inspection only, and never waited for: the body, which anyone can send, is not held meanwhile.
      const kept = Buffer.from(firstBytes(delivery.body, REJECTED_BODY_BYTES));
      this.enqueue({
        op: 'reject',
        claimed: verdict.claimed,
        rejection: verdict,
        delivery: { headers: delivery.headers, kept, bodySize: delivery.body.byteLength, receivedAt: delivery.receivedAt },
      }).catch(() => undefined);
      return { result: 'rejected', claimed: verdict.claimed, reason: verdict.reason, detail: verdict.detail, schemaNotes: verdict.schemaNotes };
    }
    const wanted = !options.eventTypes || options.eventTypes.includes(verdict.event.type);
    const forwardUrl = options.forwardTo !== undefined && wanted ? options.forwardTo : null;
    const written = (await this.enqueue(
      { op: 'accept', event: verdict.event, delivery: { ...delivery, forwardUrl }, schemaNotes: verdict.schemaNotes },
      delivery.receivedAt + ANSWER_WITHIN_MS,
    )) as Extract<Written, { duplicate: boolean }>;
    // Past the deadline, the delivery was answered 503 and this is never reached: a claim its COMMIT made
    // later is not renewed, so another replica (or this one) forwards the event once its lease expires.
    if (written.claimed) this.claimed.add(written.seq);
    return {
      result: written.duplicate ? 'duplicate' : 'accepted',
      event: verdict.event,
      schemaNotes: verdict.schemaNotes,
      seq: written.seq,
      forwardUrl: written.claimed ? forwardUrl : null,
    };
  }

  /**
   * Records a forward's outcome, again and again while the database does not answer, so that an event
   * the application took is not forwarded a second time when the lease would otherwise expire; once
   * the listener stops, for RECORD_RETRY_WHEN_STOPPING_MS at most.
   */
  async recordForward(seq: number, outcome: ForwardOutcome, at: number): Promise<void> {
    for (;;) {
      try {
        await this.store.recordForward(seq, outcome, at);
        this.claimed.delete(seq);
        this.markAvailable();
        return;
      } catch (error) {
        this.markUnavailable(error as Error);
        if (this.closed || (this.recordDeadline !== undefined && this.options.clock.now() > this.recordDeadline)) throw error;
        await this.options.clock.sleep(RECORD_RETRY_MS);
      }
    }
  }

  /**
   * Claims forwards that a replica left unfinished (its lease expired): this replica forwards them now,
   * or records why not (checkTakeover).
   * Only after the database has answered for a whole lease: after an outage, the replicas still
   * forwarding have had the time to renew the leases that ran out meanwhile.
   */
  async claimAbandoned(limit: number): Promise<ClaimedForward[]> {
    if (this.options.forwardTo === undefined || this.closed || !this.available || this.options.clock.now() - this.availableSince < this.options.leaseMs)
      return [];
    try {
      const claims = await this.store.claimAbandoned(this.replica, this.options.leaseMs, limit);
      for (const claim of claims) this.claimed.add(claim.seq);
      this.markAvailable();
      return claims;
    } catch (error) {
      this.markUnavailable(error as Error);
      return [];
    }
  }

  /**
   * A forward taken over, checked as a new delivery is, since its row is anyone's who may write the
   * table: it must go to this listener's --forward-to, and its stored body verify with the secrets as
   * the event the row names. The signature's age is not checked: the forward may have waited out an outage.
   */
  checkTakeover(claim: ClaimedForward): { ok: true; event: EventSummary } | { ok: false; detail: string } {
    const { forwardTo, encodings, signedPayloads } = this.options;
    if (claim.forwardUrl !== forwardTo) return { ok: false, detail: `its row names ${claim.forwardUrl}, not this listener's --forward-to ${forwardTo}` };
    const verdict = verifyDelivery(claim.headers, claim.body, { secrets: this.keys, toleranceSeconds: Infinity, encodings, signedPayloads });
    if (!verdict.ok) return { ok: false, detail: `its stored delivery does not verify with this listener's secrets (${verdict.reason}: ${verdict.detail})` };
    if (verdict.event.id !== claim.eventId)
      return { ok: false, detail: `its stored delivery is the event ${verdict.event.id}, not ${claim.eventId} as its row says` };
    return { ok: true, event: verdict.event };
  }

  /** The listener stops: outcomes still unrecorded are tried for a bounded time only. */
  stopping(): void {
    this.recordDeadline = this.options.clock.now() + RECORD_RETRY_WHEN_STOPPING_MS;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.expiry);
    while (this.writing) await this.writing;
    clearInterval(this.renewal);
    await this.store.close();
  }

  /** Queues a write; with `answerBy`, it is given up (and taken out of the queue, if still there) when not committed by then. */
  private enqueue(write: Write, answerBy?: number): Promise<Written> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    const bytes = bytesOf(write);
    if (!this.makeRoom(write, bytes)) {
      return Promise.reject(new Error(`${MAX_QUEUED_BYTES / 1024 / 1024} MiB of deliveries already wait for the database`));
    }
    return new Promise((resolve, reject) => {
      const queued: Queued = { write, bytes, resolve, reject };
      if (answerBy !== undefined) {
        const late = setTimeout(() => {
          this.unqueue(queued);
          reject(new Error(`the database did not commit the delivery within ${ANSWER_WITHIN_MS / 1000} s`));
        }, answerBy - this.options.clock.now());
        queued.resolve = (written) => (clearTimeout(late), resolve(written));
        queued.reject = (error) => (clearTimeout(late), reject(error));
      }
      this.queue.push(queued);
      this.queuedBytes += bytes;
      this.writing ??= this.writeAll().finally(() => (this.writing = undefined));
    });
  }

  /** Whether `bytes` more fit in MAX_QUEUED_BYTES; for a genuine delivery, rejected ones waiting (kept for inspection only) are dropped to make room, the oldest first. */
  private makeRoom(write: Write, bytes: number): boolean {
    if (write.op === 'accept') {
      for (const queued of this.queue.filter((waiting) => waiting.write.op === 'reject')) {
        if (this.queuedBytes + bytes <= MAX_QUEUED_BYTES) break;
        this.unqueue(queued);
        queued.reject(new Error('dropped to make room for a genuine delivery'));
      }
    }
    return this.queuedBytes + bytes <= MAX_QUEUED_BYTES;
  }

  /** Takes a write out of the queue unless it is being written already. */
  private unqueue(queued: Queued): void {
    const index = this.queue.indexOf(queued);
    if (index < 0) return;
    this.queue.splice(index, 1);
    this.queuedBytes -= queued.bytes;
  }

  /** Writes what is queued, a transaction at a time, until nothing is. */
  private async writeAll(): Promise<void> {
    // One turn of the event loop first: the deliveries read meanwhile share the transaction.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_WRITES_PER_TRANSACTION);
      try {
        const written = await this.store.write(
          batch.map((queued) => queued.write),
          this.replica,
          this.options.leaseMs,
        );
        batch.forEach((queued, index) => queued.resolve(written[index]!));
        this.markAvailable();
        if (batch.some((queued) => queued.write.op === 'reject')) await this.trimRejected();
      } catch (error) {
        // A batch of one is tried once more: its row's refusal is that delivery's, not the database's.
        if (refusedForItsRows(error)) await this.writeEach(batch);
        else {
          this.markUnavailable(error as Error);
          for (const queued of batch) queued.reject(error as Error);
        }
      } finally {
        for (const queued of batch) this.queuedBytes -= queued.bytes;
      }
    }
  }

  /** A batch the server refused for one of its rows, written again one delivery a transaction, so that each outcome is that delivery's own. */
  private async writeEach(batch: readonly Queued[]): Promise<void> {
    await Promise.all(
      batch.map(async (queued) => {
        try {
          const [written] = await this.store.write([queued.write], this.replica, this.options.leaseMs);
          queued.resolve(written!);
          this.markAvailable();
        } catch (error) {
          if (!refusedForItsRows(error)) this.markUnavailable(error as Error);
          queued.reject(error as Error);
        }
      }),
    );
  }

  private async trimRejected(): Promise<void> {
    try {
      await this.store.trimRejected(this.options.rejectedLimits, this.options.clock.now());
    } catch {
      // The next rejected delivery trims.
    }
  }

  private async renewLeases(): Promise<void> {
    if (this.claimed.size === 0 || this.renewing) return;
    this.renewing = true;
    try {
      await this.store.renewLeases([...this.claimed], this.replica, this.options.leaseMs);
      this.markAvailable();
    } catch (error) {
      this.markUnavailable(error as Error);
    } finally {
      this.renewing = false;
    }
  }

  private markAvailable(): void {
    if (this.available) return;
    this.available = true;
    this.availableSince = this.options.clock.now();
    this.options.onAvailability(true, 'PostgreSQL answers again');
  }

  private markUnavailable(error: Error): void {
    if (!this.available) return;
    this.available = false;
    this.options.onAvailability(false, error.message);
  }
}
