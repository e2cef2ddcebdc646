import { createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { StoreLocation } from '../config/webhook-store.js';
import type { Delivery, IntakeOptions, IntakeResult } from './intake.js';
import { type ClaimedForward, PostgresEventStore, refusedForItsRows, type Write, type Written } from './postgres-store.js';
import { firstBytes, type ForwardOutcome, REJECTED_BODY_BYTES } from './store.js';
import { verifyDelivery } from './verify.js';

export interface PostgresIntakeOptions extends Omit<IntakeOptions, 'file'> {
  location: Extract<StoreLocation, { kind: 'postgres' }>;
  /** How long a claim on an event's forwarding holds unless renewed: the time another replica waits for one that died. */
  leaseMs: number;
  /** Told once when the database stops answering, once when it answers again. */
  onAvailability: (available: boolean, detail: string) => void;
}

/** A transaction takes at most this many deliveries, so that a steady stream still gets its answers. */
const MAX_WRITES_PER_TRANSACTION = 1024;
/** How long to wait before recording a forward's outcome again while the database does not answer. */
const RECORD_RETRY_MS = 1000;
/** How long a stopping listener keeps trying to record its forwards' outcomes; after that, their leases expire and another replica forwards them again. */
const RECORD_RETRY_WHEN_STOPPING_MS = 10_000;
/** How often rejected deliveries past their time are deleted while none arrive. */
const EXPIRY_INTERVAL_MS = 60_000;

interface Queued {
  write: Write;
  resolve: (written: Written) => void;
  reject: (error: Error) => void;
}

/**
 * Verifies deliveries and records them in PostgreSQL, for one replica of a fleet. Group commit: the
 * deliveries that arrive while a transaction is under way share the next one, and each answer waits
 * for its COMMIT. Verification is light enough for this thread; the database does the storing.
 */
export class PostgresIntake {
  /** This process, as its claims name it. */
  readonly replica = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly keys: KeyObject[];
  private queue: Queued[] = [];
  private writing: Promise<void> | undefined;
  /** The events this replica is forwarding: their leases are renewed until their outcome is recorded. */
  private readonly claimed = new Set<number>();
  private readonly renewal: NodeJS.Timeout;
  private readonly expiry: NodeJS.Timeout;
  /** Set when the listener stops: recording a forward's outcome is given up after it. */
  private recordDeadline: number | undefined;
  private available = true;
  /** Since when the database has answered this replica without a break. */
  private availableSince = Date.now();
  private closed = false;

  private constructor(
    private readonly store: PostgresEventStore,
    private readonly options: PostgresIntakeOptions,
  ) {
    this.keys = options.secrets.map((secret) => createSecretKey(secret, 'utf8'));
    this.renewal = setInterval(() => void this.renewLeases(), options.leaseMs / 3);
    this.expiry = setInterval(() => void this.trimRejected(), EXPIRY_INTERVAL_MS);
    void this.trimRejected();
  }

  static async open(options: PostgresIntakeOptions): Promise<PostgresIntake> {
    return new PostgresIntake(await PostgresEventStore.open(options.location), options);
  }

  /** Resolves once the delivery is verified and, accepted or rejected, committed. */
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
      // Kept for inspection only; the delivery is refused all the same.
      const kept = Buffer.from(firstBytes(delivery.body, REJECTED_BODY_BYTES));
      await this.enqueue({
        op: 'reject',
        claimed: verdict.claimed,
        rejection: verdict,
        delivery: { headers: delivery.headers, kept, bodySize: delivery.body.byteLength, receivedAt: delivery.receivedAt },
      }).catch(() => undefined);
      return { result: 'rejected', claimed: verdict.claimed, reason: verdict.reason, detail: verdict.detail, schemaNotes: verdict.schemaNotes };
    }
    const wanted = !options.eventTypes || options.eventTypes.includes(verdict.event.type);
    const forwardUrl = options.forwardTo !== undefined && wanted ? options.forwardTo : null;
    const written = (await this.enqueue({
      op: 'accept',
      event: verdict.event,
      delivery: { ...delivery, forwardUrl },
      schemaNotes: verdict.schemaNotes,
    })) as Extract<Written, { duplicate: boolean }>;
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
        if (this.closed || (this.recordDeadline !== undefined && Date.now() > this.recordDeadline)) throw error;
        await new Promise((resolve) => setTimeout(resolve, RECORD_RETRY_MS));
      }
    }
  }

  /**
   * Claims forwards that a replica left unfinished (its lease expired): this replica forwards them now.
   * Only after the database has answered for a whole lease: after an outage, the replicas still
   * forwarding have had the time to renew the leases that ran out meanwhile.
   */
  async claimAbandoned(limit: number): Promise<ClaimedForward[]> {
    if (this.closed || !this.available || Date.now() - this.availableSince < this.options.leaseMs) return [];
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

  /** The listener stops: outcomes still unrecorded are tried for a bounded time only. */
  stopping(): void {
    this.recordDeadline = Date.now() + RECORD_RETRY_WHEN_STOPPING_MS;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.expiry);
    while (this.writing) await this.writing;
    clearInterval(this.renewal);
    await this.store.close();
  }

  private enqueue(write: Write): Promise<Written> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.writing ??= this.writeAll().finally(() => (this.writing = undefined));
    });
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
        if (batch.length > 1 && refusedForItsRows(error)) await this.writeEach(batch);
        else {
          this.markUnavailable(error as Error);
          for (const queued of batch) queued.reject(error as Error);
        }
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
      await this.store.trimRejected(this.options.rejectedLimits, Date.now());
    } catch {
      // The next rejected delivery trims.
    }
  }

  private async renewLeases(): Promise<void> {
    if (this.claimed.size === 0) return;
    try {
      await this.store.renewLeases([...this.claimed], this.replica, this.options.leaseMs);
      this.markAvailable();
    } catch (error) {
      this.markUnavailable(error as Error);
    }
  }

  private markAvailable(): void {
    if (this.available) return;
    this.available = true;
    this.availableSince = Date.now();
    this.options.onAvailability(true, 'PostgreSQL answers again');
  }

  private markUnavailable(error: Error): void {
    if (!this.available) return;
    this.available = false;
    this.options.onAvailability(false, error.message);
  }
}
