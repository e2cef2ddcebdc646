import type { EventType } from '../api/types.js';
import { newId, nowIso } from '../core/ids.js';
import type { SandboxStore } from './database.js';

/**
 * Records events of part 6 with one delivery per subscriber URL. Call it inside the transaction
 * of the change it announces (an outbox), then wake the dispatcher after the commit.
 */
export class EventLog {
  constructor(
    private readonly store: SandboxStore,
    private readonly subscriberUrls: readonly string[],
  ) {}

  record(workspaceId: string, type: EventType, data: object): string {
    const id = newId('evt');
    const createdAt = nowIso();
    const body = JSON.stringify({ id, type, created_at: createdAt, data });
    this.store.insertEvent({ id, workspaceId, type, body, createdAt }, this.subscriberUrls, Date.now());
    return id;
  }
}
