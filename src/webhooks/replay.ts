import type { Network } from '../api/network.js';
import { SvcError } from '../core/errors.js';
import type { EventRecords } from './event-records.js';
import type { StoredEvent } from './event-rows.js';
import { checkForwardUrl, replayHeaders } from './forward.js';
import { type AttemptResult, postRaw } from './send.js';
import { SIGNATURE_ENCODINGS, SIGNED_PAYLOADS } from './signature.js';
import { verifyDelivery } from './verify.js';

/** A stored event sent again, and what the application answered. */
export interface Replayed {
  event: StoredEvent;
  url: string;
  result: AttemptResult;
  /** Signed afresh with the secrets given; else sent with its original signature. */
  resigned: boolean;
  /** Sent with its original signature, older than an application that checks timestamps takes. */
  staleSignature: boolean;
}

export interface ReplayOptions {
  /** Where to send it; else where the listener forwarded it. */
  to: string | undefined;
  secrets: readonly string[];
  network: Network;
  at: () => number;
}

/** Where a stored event goes again: `to`, else the URL the listener forwarded it to, which must pass as --forward-to would. */
function targetOf(event: StoredEvent, to: string | undefined): string {
  if (to !== undefined) return to;
  if (event.forwardUrl === null) {
    throw new SvcError(
      'usage',
      'no_forward_url',
      `${event.eventId} was never forwarded (the listener that stored it had no --forward-to), so there is no URL to send it to again`,
      'give --forward-to <url>',
    );
  }
  checkForwardUrl(event.forwardUrl, 'the stored forward URL');
  return event.forwardUrl;
}

/**
 * Checks that a stored event may be signed afresh: its stored delivery must verify with the secrets
 * (whatever its age), as the event its row names, as a fleet's takeover checks it. A store's rows are
 * written by whoever may write its table; svc signs only what a holder of the secret sent.
 */
function assertSigned(event: StoredEvent, secrets: readonly string[]): void {
  const verdict = verifyDelivery(event.headers, event.body, {
    secrets,
    toleranceSeconds: Infinity,
    encodings: SIGNATURE_ENCODINGS,
    signedPayloads: SIGNED_PAYLOADS,
  });
  const why = !verdict.ok ? `${verdict.reason}: ${verdict.detail}` : verdict.event.id === event.eventId ? undefined : `it is the event ${verdict.event.id}`;
  if (why === undefined) return;
  throw new SvcError(
    'verificationFailed',
    'stored_event_not_verified',
    `the stored delivery of ${event.eventId} does not verify with the webhook secrets given (${why}); svc signs afresh only what a holder of the secret sent`,
    'give the secret it was signed with (several, comma-separated in SVC_WEBHOOK_SECRET, after a rotation), or replay it without a secret to send its original signature',
  );
}

/** Sends a stored event again, with its raw body and original headers (signed afresh when given secrets), and records the outcome. */
export async function replayStored(store: EventRecords, event: StoredEvent, options: ReplayOptions): Promise<Replayed> {
  const url = targetOf(event, options.to);
  if (options.secrets.length > 0) assertSigned(event, options.secrets);
  const { headers, staleSignature } = replayHeaders(event, options.secrets);
  const result = await postRaw(url, headers, event.body, options.network);
  await store.recordForward(event.seq, { url, status: result.status, error: result.error }, options.at());
  return { event, url, result, resigned: options.secrets.length > 0, staleSignature };
}

/** Events read from the store at a time while replaying, so that memory stays bounded whatever the backlog. */
const PAGE = 20;

/**
 * The accepted events the application did not take (`webhooks events --not-forwarded`), oldest first,
 * among those stored when the replay started: a page at a time, so that a long backlog is never held whole.
 */
export async function* notForwarded(store: EventRecords, until: number): AsyncGenerator<StoredEvent> {
  let afterSeq: number | undefined;
  for (;;) {
    const page = await store.events({ notForwarded: true, status: 'accepted', until, afterSeq, oldestFirst: true, limit: PAGE });
    yield* page;
    if (page.length < PAGE) return;
    afterSeq = page.at(-1)!.seq;
  }
}
