import type { IncomingHttpHeaders } from 'node:http';
import { claimedEvent, type EventSummary, readEnvelope, schemaNotes } from './envelope.js';
import { type SignatureFailure, type SignatureOptions, signatureHeaderOf, verifySignature } from './signature.js';

/** Why a delivery was refused: one code per failing step. */
export type RejectionReason = SignatureFailure | 'body_not_json' | 'envelope_invalid';

export interface VerifyOptions extends SignatureOptions {
  /** Refuse a body that differs from openapi.yaml's event schemas, instead of noting it. */
  strictSchema?: boolean;
}

/** `schemaNotes`: how an authentic body differs from openapi.yaml (empty when its signature failed: an unauthenticated body is not examined). */
export type DeliveryVerdict =
  | { ok: true; event: EventSummary; schemaNotes: string[]; secretIndex: number; timestamp: number }
  | { ok: false; reason: RejectionReason; detail: string; claimed: Partial<EventSummary>; schemaNotes: string[] };

/** The Service-Event header's value; Node joins a repeated one with ", ". */
function serviceEventOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['service-event'];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Verifies a delivery as a receiver must: the signature over the raw body first (nothing of an
 * unauthenticated body is trusted), then the envelope part 6 states. Where the body differs from
 * openapi.yaml's event schemas it is accepted with notes, or refused with `strictSchema`.
 */
export function verifyDelivery(headers: IncomingHttpHeaders, body: Uint8Array, options: VerifyOptions): DeliveryVerdict {
  const signature = verifySignature(signatureHeaderOf(headers)?.value, body, options);
  if (!signature.ok) return { ok: false, reason: signature.reason, detail: signature.detail, claimed: claimedEvent(body), schemaNotes: [] };
  const reading = readEnvelope(body);
  if (!reading.ok) return { ...reading, schemaNotes: [] };
  const notes = schemaNotes(reading.envelope, serviceEventOf(headers));
  if (options.strictSchema && notes.length > 0)
    return { ok: false, reason: 'envelope_invalid', detail: notes.join('; '), claimed: reading.event, schemaNotes: notes };
  return { ok: true, event: reading.event, schemaNotes: notes, secretIndex: signature.secretIndex, timestamp: signature.timestamp };
}
