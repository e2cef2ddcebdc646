import type { IncomingHttpHeaders } from 'node:http';
import { checkEnvelope, claimedEvent, type EventSummary } from './envelope.js';
import { type SignatureFailure, type SigningKey, signatureHeaderOf, verifySignature } from './signature.js';

/** Why a delivery was refused: one code per failing step. */
export type RejectionReason = SignatureFailure | 'body_not_json' | 'envelope_invalid';

export interface VerifyOptions {
  secrets: readonly SigningKey[];
  toleranceSeconds?: number;
  now?: number;
}

export type DeliveryVerdict =
  | { ok: true; event: EventSummary; secretIndex: number; timestamp: number }
  | { ok: false; reason: RejectionReason; detail: string; claimed: Partial<EventSummary> };

/**
 * Verifies a delivery as a receiver must: the signature over the raw body first (nothing of an
 * unauthenticated body is trusted), then the body against openapi.yaml's webhook schemas.
 */
export function verifyDelivery(headers: IncomingHttpHeaders, body: Uint8Array, options: VerifyOptions): DeliveryVerdict {
  const signature = verifySignature(signatureHeaderOf(headers)?.value, body, options);
  if (!signature.ok) return { ok: false, reason: signature.reason, detail: signature.detail, claimed: claimedEvent(body) };
  const serviceEvent = headers['service-event'];
  const envelope = checkEnvelope(body, Array.isArray(serviceEvent) ? serviceEvent.join(', ') : serviceEvent);
  if (!envelope.ok) return envelope;
  return { ok: true, event: envelope.event, secretIndex: signature.secretIndex, timestamp: signature.timestamp };
}
