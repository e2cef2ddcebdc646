import type { Clock } from '../core/clock.js';

/** How long a run may wait in all at the implementation's request, and how many transient answers it takes in a row. */
export interface RunLimits {
  /** `--max-wait-total`. */
  waitMs: number;
  /** `--max-transient-answers`. */
  transientInARow: number;
}

/**
 * A Free plan key's whole run (10 requests a minute, of which the kit takes 8) sends some 70 requests
 * and waits about 6 minutes for its windows: 30 minutes leaves five times that. A paced run takes few
 * transient answers in a row (none in that run; a 429 for each key when another client used up the
 * window): 40 is twice what one request may take (a 429 sent again 20 times).
 */
export const DEFAULT_RUN_LIMITS: RunLimits = { waitMs: 30 * 60_000, transientInARow: 40 };

/** Which budget stopped a run. */
export type SpentBudget = 'waits' | 'transient_answers';

/**
 * The run went past one of its budgets: it stops at once, and every check not yet decided is
 * inconclusive with this reason, never failed: the implementation never gave its answer.
 */
export class RunStopped extends Error {
  constructor(
    readonly budget: SpentBudget,
    message: string,
  ) {
    super(message);
    this.name = 'RunStopped';
  }
}

const seconds = (ms: number) => `${Math.ceil(ms / 1000)} s`;

/**
 * The run's budgets for what the implementation asks of it: the time it waits at its request
 * (Retry-After, X-RateLimit-Reset, pacing, retries; waits of different keys at once counted once, as
 * the time of the run they take) and the transient answers it takes in a row (a 429, or a 502, 503 or
 * 504 with Retry-After, of any request). Past either, the run stops: `signal` aborts with the
 * RunStopped, so that every wait and exchange under way ends at once.
 */
export class RunBudget {
  private waitedMs = 0;
  /** Until when the waits begun so far run: a wait that ends before adds nothing. */
  private waitingUntil = -Infinity;
  private inARow = 0;
  private mostInARow = 0;
  private readonly controller = new AbortController();

  constructor(
    readonly limits: RunLimits,
    private readonly clock: Clock,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why the run stopped, once it has. */
  get stopped(): RunStopped | undefined {
    return this.controller.signal.aborted ? (this.controller.signal.reason as RunStopped) : undefined;
  }

  /** Counts a wait of `ms` the implementation asked for (`why`: the answer that did), or stops the run if it would take the run past its budget. */
  wait(ms: number, why: string): void {
    if (this.stopped) throw this.stopped;
    const now = this.clock.now();
    const added = Math.max(0, now + ms - Math.max(now, this.waitingUntil));
    if (this.waitedMs + added > this.limits.waitMs) {
      this.stop(
        'waits',
        `the run had waited ${seconds(this.waitedMs)} at the implementation's request when ${why} asked for ${seconds(ms)} more, past the run's budget of ${seconds(this.limits.waitMs)} (--max-wait-total): the kit stopped the run`,
      );
    }
    this.waitedMs += added;
    this.waitingUntil = Math.max(this.waitingUntil, now + ms);
  }

  /** Counts an answer: a transient one (`request`: what was answered so) adds to those in a row, or stops the run past its budget; any other ends the row. */
  answered(transient: { status: number; request: string } | undefined): void {
    // After the stop, only the cleanup is sent, once each: its answers count for nothing.
    if (this.stopped) return;
    if (!transient) {
      this.inARow = 0;
      return;
    }
    this.inARow++;
    this.mostInARow = Math.max(this.mostInARow, this.inARow);
    if (this.inARow > this.limits.transientInARow) {
      this.stop(
        'transient_answers',
        `the implementation gave ${this.inARow} transient answers in a row (the last a ${transient.status} to ${transient.request}), past the run's budget of ${this.limits.transientInARow} (--max-transient-answers): the kit stopped the run`,
      );
    }
  }

  private stop(budget: SpentBudget, message: string): never {
    this.controller.abort(new RunStopped(budget, message));
    throw this.stopped!;
  }

  /** For the run record. */
  get record() {
    return {
      waits: { waited_ms: this.waitedMs, limit_ms: this.limits.waitMs },
      transient_answers: { most_in_a_row: this.mostInARow, limit_in_a_row: this.limits.transientInARow },
    };
  }
}
