import { type StoreLocation } from '../config/webhook-store.js';
import { PostgresEventStore } from './postgres-store.js';
import type { EventFilter, ForwardOutcome, PruneResult, StoredEvent } from './event-rows.js';
import { EventStore } from './sqlite-store.js';

/**
 * The stored events as `webhooks events`, `replay`, `prune` and `listen` read them: one interface over
 * the embedded SQLite file and the PostgreSQL database a fleet of listeners shares.
 */
export interface EventRecords {
  event(eventId: string): Promise<StoredEvent | undefined>;
  /** Newest first, unless the filter asks for the oldest. */
  events(filter: EventFilter): Promise<StoredEvent[]>;
  prune(before: number, options: { includeNotForwarded: boolean; dryRun: boolean }): Promise<PruneResult>;
  recordForward(seq: number, outcome: ForwardOutcome, at: number): Promise<void>;
  /** Forwards an earlier run left unfinished, which no listener holds now. */
  unfinishedForwards(): Promise<number>;
  close(): Promise<void>;
}

function sqliteRecords(store: EventStore): EventRecords {
  return {
    event: async (eventId) => store.event(eventId),
    events: async (filter) => store.events(filter),
    prune: async (before, options) => store.prune(before, options),
    recordForward: async (seq, outcome, at) => store.recordForward(seq, outcome, at),
    unfinishedForwards: async () => store.unfinishedForwards(),
    close: async () => store.close(),
  };
}

/** Opens the store the setting names (creating or migrating it), with an error that says what to check. */
export async function openEventRecords(location: StoreLocation): Promise<EventRecords> {
  return location.kind === 'sqlite' ? sqliteRecords(EventStore.open(location.file)) : PostgresEventStore.open(location, { connections: 1 });
}
