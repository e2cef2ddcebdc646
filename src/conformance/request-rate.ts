import type { Clock } from '../core/clock.js';

/** At most `requests` requests in any `perMs` milliseconds (`--rate-limit 60/m`). */
export interface RequestRate {
  requests: number;
  perMs: number;
  /** As the user wrote it, for messages. */
  text: string;
}

/**
 * The kit's own cap on its request rate, over every request it sends, on its clock: a request
 * waits until fewer than `requests` were sent in the `perMs` before it. A sliding log of the
 * last sends, as many as the cap allows, taken one at a time in the order asked.
 */
export class RequestCap {
  private readonly sent: number[] = [];
  private turn: Promise<void> = Promise.resolve();

  constructor(
    private readonly rate: RequestRate,
    private readonly clock: Clock,
  ) {}

  /** Resolves when a request may be sent, and counts it. */
  take(): Promise<void> {
    const mine = this.turn.then(async () => {
      if (this.sent.length >= this.rate.requests) {
        const waitMs = this.sent.shift()! + this.rate.perMs - this.clock.now();
        if (waitMs > 0) await this.clock.sleep(waitMs);
      }
      this.sent.push(this.clock.now());
    });
    this.turn = mine;
    return mine;
  }
}
