import { Worker } from 'node:worker_threads';
import { ownWorker } from '../core/package-files.js';
import type { Delivery, EventIntake, EventIntakeOptions, IntakeResult } from './event-intake.js';
import type { ForwardOutcome } from './event-rows.js';

export interface IntakeOptions extends EventIntakeOptions {
  /** The SQLite file of the event store. */
  file: string;
}

export type Job = { op: 'receive'; delivery: Delivery } | { op: 'forwarded'; seq: number; outcome: ForwardOutcome; at: number };

export type JobOutcome = { ok: true; value: unknown } | { ok: false; error: string };

/** What the worker answers for the jobs of one transaction, in the order they were sent: one outcome each, or why the whole transaction failed. */
export type BatchReply = { outcomes: JobOutcome[] } | { count: number; error: string };

/**
 * The bytes in a buffer of their own: posting a view into one of Node's shared buffers (its 8 KiB
 * pool, a socket's read buffer) would copy that whole buffer to the worker.
 */
function ownBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}

/**
 * Jobs go to the worker in groups of this many, the rest at the end of the event loop's turn: soon
 * enough that the worker stores while this thread reads the next deliveries, without paying a
 * message for each.
 */
const SEND_EVERY = 16;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * Verifies deliveries and records them durably, on a worker thread (intake-worker.ts), so that the
 * receiver's event loop only does HTTP. Group commit happens in the worker: it takes every job
 * waiting in its inbox into one transaction, and each promise settles only after that COMMIT
 * returned. Nothing is acknowledged before it is on disk, and concurrent deliveries share one disk
 * sync instead of paying one each.
 */
export class Intake implements EventIntake {
  /** A SQLite file has one listener: no other leaves forwards to take over. */
  readonly takeovers = undefined;
  /** Jobs submitted and not answered yet, in the order the worker answers them. */
  private readonly pending: Pending[] = [];
  private unsent: Job[] = [];
  private failure: Error | undefined;
  private drainWaiters: Array<() => void> = [];

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: BatchReply) => this.settle(reply));
    worker.on('error', (error: Error) => this.fail(error));
    worker.on('exit', () => this.fail(new Error('the intake worker stopped')));
  }

  /** Starts the worker and opens the store; rejects when it cannot be opened. */
  static async open(options: IntakeOptions): Promise<Intake> {
    const worker = ownWorker('webhooks/intake-worker', { workerData: options });
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    return new Intake(worker);
  }

  /** Resolves once the delivery is verified and, accepted or rejected, committed to the store. */
  receive(delivery: Delivery): Promise<IntakeResult> {
    return this.submit({ op: 'receive', delivery: { ...delivery, body: ownBytes(delivery.body) } }) as Promise<IntakeResult>;
  }

  recordForward(seq: number, outcome: ForwardOutcome, at: number): Promise<void> {
    return this.submit({ op: 'forwarded', seq, outcome, at }) as Promise<void>;
  }

  stopping(): void {
    // Nothing to bound: an outcome the worker cannot record fails at once.
  }

  /** Waits for every job submitted to be answered, then stops the worker, which closes the store. */
  async close(): Promise<void> {
    if (this.pending.length > 0) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    if (this.failure) return;
    this.failure = new Error('the store is closed');
    const exited = new Promise((resolve) => this.worker.once('exit', resolve));
    this.worker.postMessage('close');
    await exited;
  }

  private submit(job: Job): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      if (this.unsent.push(job) >= SEND_EVERY) this.send();
      else if (this.unsent.length === 1) setImmediate(() => this.send());
    });
  }

  private send(): void {
    if (this.unsent.length === 0 || this.failure) return;
    this.worker.postMessage(this.unsent);
    this.unsent = [];
  }

  private settle(reply: BatchReply): void {
    const answered = this.pending.splice(0, 'outcomes' in reply ? reply.outcomes.length : reply.count);
    answered.forEach((pending, index) => {
      if ('error' in reply) return pending.reject(new Error(reply.error));
      const outcome = reply.outcomes[index]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(new Error(outcome.error));
    });
    if (this.pending.length === 0) for (const done of this.drainWaiters.splice(0)) done();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const pending of this.pending.splice(0)) pending.reject(error);
    this.unsent = [];
    for (const done of this.drainWaiters.splice(0)) done();
  }
}
