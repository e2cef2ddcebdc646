import type { Network } from '../api/network.js';
import { randomBytes } from 'node:crypto';
import { type EventBody, sampleEvent, shortCompletedEvent } from './samples.js';
import { type AttemptResult, deliveryHeaders, isDelivered, postRaw } from './send.js';
import { DEFAULT_TOLERANCE_SECONDS, signatureHeader } from './signature.js';

export interface Verdict {
  check: string;
  /** null: not run, because what it needs failed first. */
  passed: boolean | null;
  detail: string;
}

export interface SubscriberCheckOptions {
  secrets: readonly string[];
  /** The proxies and trust the deliveries go through. */
  network: Network;
  eventType: string;
  /** Leave out the check that the endpoint accepts an event of a kind openapi.yaml does not list. */
  strictSchema?: boolean;
  onVerdict?: (verdict: Verdict) => void;
}

/** An event kind part 6 does not list; its list is not definitive, so a subscriber must not refuse one. */
const UNLISTED_KIND = 'report.archived';

// Twice the tolerance of openapi.yaml's x-webhook-signature, so a receiver that allows a little more still fails it.
const SKEW_SECONDS = DEFAULT_TOLERANCE_SECONDS * 2;

/** What a receiver that takes a delivery without a valid signature lets in. */
const FORGERY = 'or anyone can forge events';
/**
 * What a receiver that verifies the HMAC but not the timestamp lets in, and what it does not: a replay,
 * not a forgery. Part 6 states no tolerance; openapi.yaml assumes one.
 */
const REPLAY = `forging one still needs the secret; the ${DEFAULT_TOLERANCE_SECONDS} s tolerance is openapi.yaml's assumption, the specification states none`;

function answered(result: AttemptResult): string {
  return result.status === null ? `no answer: ${result.error} (${result.durationMs} ms)` : `answered ${result.status} in ${result.durationMs} ms`;
}

/** Deliveries to one endpoint and the verdicts on its answers. */
class SubscriberProbe {
  readonly verdicts: Verdict[] = [];
  /** Whether the endpoint accepted a valid event: until it does, no other answer proves anything. */
  accepted = false;

  constructor(
    private readonly url: string,
    private readonly options: SubscriberCheckOptions,
  ) {}

  record(verdict: Verdict): void {
    this.verdicts.push(verdict);
    this.options.onVerdict?.(verdict);
  }

  send(event: EventBody, signature: (body: string) => string | undefined): Promise<AttemptResult> {
    const body = JSON.stringify(event);
    return postRaw(this.url, deliveryHeaders(event.type, signature(body)), Buffer.from(body), this.options.network);
  }

  /** A delivery the endpoint must acknowledge with a 2xx. */
  async expectAccepted(check: string, event: EventBody, signature: (body: string) => string, what: string): Promise<void> {
    if (!this.accepted) return this.record({ check, passed: null, detail: 'skipped: the endpoint does not accept a valid event' });
    const result = await this.send(event, signature);
    this.record({ check, passed: isDelivered(result), detail: `${what}: ${answered(result)}${isDelivered(result) ? '' : '; expected a 2xx'}` });
  }

  /** A delivery of a new event, signed as `signature` says, that the endpoint must refuse with a 4xx, or `risk` is what it lets in. */
  async expectRefused(check: string, signature: (body: string) => string | undefined, what: string, risk: string): Promise<void> {
    if (!this.accepted) return this.record({ check, passed: null, detail: 'skipped: the endpoint does not accept a valid event, so a refusal proves nothing' });
    const result = await this.send(sampleEvent(this.options.eventType), signature);
    const refused = result.status !== null && result.status >= 400 && result.status < 500;
    let detail = `${what}: ${answered(result)}`;
    if (isDelivered(result)) detail += `; it must be refused, ${risk}`;
    else if (!refused) detail += '; expected a 4xx, a deliberate refusal';
    this.record({ check, passed: refused, detail });
  }
}

/**
 * Grades a subscriber endpoint the way the service will treat it (part 6): a valid event gets a
 * 2xx within 10 s, also with several v1 values, also in report.completed's shorter variant and of a
 * kind openapi.yaml does not list (a refused event is retried for 24 h, then lost to the
 * application); forged, unsigned, stale and future-dated deliveries are refused with a 4xx; and a
 * retry of an accepted event id is acknowledged again.
 * It sends real deliveries: point it at a test endpoint.
 */
export async function checkSubscriber(url: string, options: SubscriberCheckOptions): Promise<Verdict[]> {
  const probe = new SubscriberProbe(url, options);
  const signedNow = (body: string) => signatureHeader(options.secrets, body);
  const now = () => Math.floor(Date.now() / 1000);

  const valid = sampleEvent(options.eventType);
  const first = await probe.send(valid, signedNow);
  probe.accepted = isDelivered(first);
  probe.record({ check: 'accepts_valid_event', passed: probe.accepted, detail: answered(first) + (probe.accepted ? '' : '; expected a 2xx within 10 s') });

  const strangerSecret = `whsec_${randomBytes(24).toString('hex')}`;
  await probe.expectAccepted(
    'accepts_several_v1',
    sampleEvent(options.eventType),
    (body) => signatureHeader([strangerSecret, ...options.secrets], body),
    "an unknown secret's v1 first, then a valid one (as during a secret rotation)",
  );
  await probe.expectAccepted(
    'accepts_short_completed',
    shortCompletedEvent(),
    signedNow,
    "report.completed with data {report_id, risk_score}, part 6's shorter variant",
  );
  if (!options.strictSchema)
    await probe.expectAccepted('accepts_unlisted_kind', sampleEvent(UNLISTED_KIND), signedNow, `a ${UNLISTED_KIND} event, a kind part 6 does not list`);

  await probe.expectRefused('rejects_bad_signature', (body) => signatureHeader(strangerSecret, body), 'signed with another secret', FORGERY);
  await probe.expectRefused('rejects_missing_signature', () => undefined, 'no signature header', FORGERY);
  await probe.expectRefused(
    'rejects_stale_timestamp',
    (body) => signatureHeader(options.secrets, body, now() - SKEW_SECONDS),
    `validly signed ${SKEW_SECONDS} s ago`,
    `or whoever captured a delivery can send it again later (${REPLAY})`,
  );
  await probe.expectRefused(
    'rejects_future_timestamp',
    (body) => signatureHeader(options.secrets, body, now() + SKEW_SECONDS),
    `validly signed ${SKEW_SECONDS} s in the future`,
    `or a captured delivery dated ahead can be sent again until long after it was made (${REPLAY})`,
  );

  await probe.expectAccepted('acknowledges_duplicate', valid, signedNow, 'the first event again, same id, signed anew as a retry is');
  return probe.verdicts;
}
