import type { IncomingHttpHeaders } from 'node:http';
import type { EventSummary } from './envelope.js';
import type { ForwardOutcome, RejectedLimits } from './event-rows.js';
import type { ClaimedForward } from './postgres-store.js';
import type { SignatureEncoding, SignedPayload } from './signature.js';
import type { RejectionReason } from './verify.js';

/** What verifying and storing deliveries takes, whichever the store. */
export interface EventIntakeOptions {
  secrets: readonly string[];
  toleranceSeconds: number;
  /** The encodings of v1 and what a signature may be taken over (defaults: verifySignature's). */
  encodings?: readonly SignatureEncoding[] | undefined;
  signedPayloads?: readonly SignedPayload[] | undefined;
  forwardTo?: string | undefined;
  /** Kinds to forward; the others are stored but not marked for forwarding. */
  eventTypes?: readonly string[] | undefined;
  /** Refuse bodies that differ from openapi.yaml's event schemas, instead of noting it. */
  strictSchema: boolean;
  rejectedLimits: RejectedLimits;
}

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: Uint8Array;
  receivedAt: number;
}

export type IntakeResult =
  | { result: 'accepted' | 'duplicate'; event: EventSummary; schemaNotes: string[]; seq: number; forwardUrl: string | null }
  | { result: 'rejected'; claimed: Partial<EventSummary>; reason: RejectionReason; detail: string; schemaNotes: string[] };

/**
 * What the listener stores deliveries through: the SQLite file's worker thread (intake.ts) or the
 * PostgreSQL a fleet shares (postgres-intake.ts). Both verify each delivery and commit it before it
 * is answered, deliveries that arrive together sharing one transaction.
 */
export interface EventIntake {
  /** Resolves once the delivery is verified and, accepted or rejected, committed as its result says; rejects when it could not be stored. */
  receive(delivery: Delivery): Promise<IntakeResult>;
  /** Records what became of a forward; rejects when it could not be recorded. */
  recordForward(seq: number, outcome: ForwardOutcome, at: number): Promise<void>;
  /** The forwards other listeners sharing the store left unfinished; undefined where no other listener shares it. */
  readonly takeovers: Takeovers | undefined;
  /** The listener stops: what is still to be recorded is tried for a bounded time only. */
  stopping(): void;
  /** Waits for what was submitted, then closes the store. */
  close(): Promise<void>;
}

/** Forwards a listener that stopped or died left unfinished, which another listener of the fleet takes over. */
export interface Takeovers {
  /** Claims up to `limit` of them for this listener. */
  claimAbandoned(limit: number): Promise<ClaimedForward[]>;
  /** Whether a claimed forward is one this listener may send, checked as a new delivery is. */
  checkTakeover(claim: ClaimedForward): { ok: true; event: EventSummary } | { ok: false; detail: string };
}

/** A transaction takes at most this many writes, so that a steady stream of deliveries still gets its answers. */
export const MAX_WRITES_PER_TRANSACTION = 1024;

/** How often rejected deliveries past their time are deleted while none arrive. */
export const REJECTED_EXPIRY_INTERVAL_MS = 60_000;
