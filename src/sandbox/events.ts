import type { EventType } from '../api/types.js';
import type { Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import type { SandboxStore } from './database.js';

/**
 * Records events of part 6 with one delivery per subscriber URL. Call it inside the transaction
 * of the change it announces (an outbox), then wake the dispatcher after the commit.
 */
export class EventLog {
  constructor(
    private readonly store: SandboxStore,
    private readonly subscriberUrls: readonly string[],
    private readonly clock: Clock,
  ) {}

  record(workspaceId: string, type: EventType, data: object): string {
    const id = newId('evt');
    const now = this.clock.now();
    const createdAt = new Date(now).toISOString();
    const body = JSON.stringify({ id, type, created_at: createdAt, data });
    this.store.insertEvent({ id, workspaceId, type, body, createdAt }, this.subscriberUrls, now);
    return id;
  }
}
