import type { Clock } from '../core/clock.js';
import type { SandboxStore } from './database.js';

const FLUSH_MS = 500;

/** The last use of each key (part 5.6), written to the store in batches rather than once per request. */
export class KeyUseRecorder {
  private readonly uses = new Map<string, { id: string; at: number; ip: string }>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: SandboxStore,
    private readonly clock: Clock,
  ) {
    this.timer = setInterval(() => this.flush(), FLUSH_MS);
  }

  record(keyId: string, ip: string): void {
    this.uses.set(keyId, { id: keyId, at: this.clock.now(), ip });
  }

  /** Writes the uses recorded since the last flush: before an admin reads them, and on stop. */
  flush(): void {
    if (this.uses.size === 0) return;
    this.store.markKeysUsed([...this.uses.values()].map((use) => ({ ...use, at: new Date(use.at).toISOString() })));
    this.uses.clear();
  }

  stop(): void {
    clearInterval(this.timer);
    this.flush();
  }
}
