interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: writes submitted during one turn of the event loop run in a single transaction,
 * and each promise settles only after that COMMIT returned. Concurrent deliveries then share one
 * disk sync instead of paying one each, and none is answered before its write is durable.
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: (() => void) | undefined;

  constructor(private readonly transaction: <T>(work: () => T) => T) {}

  submit<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        this.idle = new Promise((done) => (this.markIdle = done));
        // setImmediate runs after the poll phase, so every request that arrived in this turn joins the batch.
        setImmediate(() => this.flush());
      }
    });
  }

  /** Settles once every write submitted so far is committed (or failed). */
  drained(): Promise<void> {
    return this.idle;
  }

  private flush(): void {
    const batch = this.queue;
    const done = this.markIdle;
    this.queue = [];
    this.scheduled = false;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.transaction(() => {
        // A failing statement undoes only itself; the others of the batch still commit.
        for (const item of batch) {
          try {
            outcomes.push({ ok: true, value: item.work() });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
      done?.();
      return;
    }
    batch.forEach((item, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
    done?.();
  }
}
