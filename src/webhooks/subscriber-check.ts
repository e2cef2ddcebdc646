import { randomBytes } from 'node:crypto';
import type { EventType } from '../api/types.js';
import type { AttemptResult } from '../sandbox/dispatcher.js';
import { postRaw } from './forward.js';
import { sampleEvent } from './samples.js';
import { deliveryHeaders } from './send.js';
import { DEFAULT_TOLERANCE_SECONDS, signatureHeader } from './signature.js';

export interface Verdict {
  check: string;
  /** null: not run, because what it needs failed first. */
  passed: boolean | null;
  detail: string;
}

export interface SubscriberCheckOptions {
  secrets: readonly string[];
  eventType: EventType;
  onVerdict?: (verdict: Verdict) => void;
}

// Twice the tolerance of openapi.yaml's x-webhook-signature, so a receiver that allows a little more still fails it.
const SKEW_SECONDS = DEFAULT_TOLERANCE_SECONDS * 2;

function answered(result: AttemptResult): string {
  return result.status === null ? `no answer: ${result.error} (${result.durationMs} ms)` : `answered ${result.status} in ${result.durationMs} ms`;
}

const ok = (result: AttemptResult) => result.status !== null && result.status >= 200 && result.status < 300;

/**
 * Grades a subscriber endpoint the way the service will treat it (part 6): a valid event gets a
 * 2xx within 10 s, also with several v1 values; forged, unsigned, stale and future-dated deliveries
 * are refused with a 4xx; and a retry of an accepted event id is acknowledged again.
 * It sends real deliveries: point it at a test endpoint.
 */
export async function checkSubscriber(url: string, options: SubscriberCheckOptions): Promise<Verdict[]> {
  const verdicts: Verdict[] = [];
  const record = (verdict: Verdict) => {
    verdicts.push(verdict);
    options.onVerdict?.(verdict);
  };
  const send = (body: string, signature: string | undefined) => postRaw(url, deliveryHeaders(options.eventType, signature), Buffer.from(body));
  const now = () => Math.floor(Date.now() / 1000);
  const fresh = () => JSON.stringify(sampleEvent(options.eventType));

  const valid = fresh();
  const first = await send(valid, signatureHeader(options.secrets, valid));
  const accepted = ok(first);
  record({ check: 'accepts_valid_event', passed: accepted, detail: answered(first) + (accepted ? '' : '; expected a 2xx within 10 s') });

  const rotating = fresh();
  const strangerSecret = `whsec_${randomBytes(24).toString('hex')}`;
  const expectAccepted = async (check: string, body: string, signature: string, what: string) => {
    if (!accepted) return record({ check, passed: null, detail: 'skipped: the endpoint does not accept a valid event' });
    const result = await send(body, signature);
    record({ check, passed: ok(result), detail: `${what}: ${answered(result)}${ok(result) ? '' : '; expected a 2xx'}` });
  };
  await expectAccepted('accepts_several_v1', rotating, signatureHeader([strangerSecret, ...options.secrets], rotating), 'an unknown secret\'s v1 first, then a valid one (as during a secret rotation)');

  const expectRefused = async (check: string, body: string, signature: string | undefined, what: string) => {
    if (!accepted) return record({ check, passed: null, detail: 'skipped: the endpoint does not accept a valid event, so a refusal proves nothing' });
    const result = await send(body, signature);
    const refused = result.status !== null && result.status >= 400 && result.status < 500;
    let detail = `${what}: ${answered(result)}`;
    if (ok(result)) detail += '; it must be refused, or anyone can forge events';
    else if (!refused) detail += '; expected a 4xx, a deliberate refusal';
    record({ check, passed: refused, detail });
  };
  const forged = fresh();
  await expectRefused('rejects_bad_signature', forged, signatureHeader(strangerSecret, forged), 'signed with another secret');
  const unsigned = fresh();
  await expectRefused('rejects_missing_signature', unsigned, undefined, 'no signature header');
  const stale = fresh();
  await expectRefused('rejects_stale_timestamp', stale, signatureHeader(options.secrets, stale, now() - SKEW_SECONDS), `validly signed ${SKEW_SECONDS} s ago`);
  const future = fresh();
  await expectRefused('rejects_future_timestamp', future, signatureHeader(options.secrets, future, now() + SKEW_SECONDS), `validly signed ${SKEW_SECONDS} s in the future`);

  await expectAccepted('acknowledges_duplicate', valid, signatureHeader(options.secrets, valid), 'the first event again, same id, signed anew as a retry is');
  return verdicts;
}
