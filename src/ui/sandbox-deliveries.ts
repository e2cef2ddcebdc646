import type { Delivery, DeliveryAttempt } from '../sandbox/database.js';

/**
 * 0.1.0's names of a delivery's fields, printed beside the snake_case ones until 0.3.0
 * (src/cli/deprecated-json.ts): deprecated, read `event_id`, `event_type`, `next_attempt_at` (an ISO 8601
 * time where `nextAttemptAt` is milliseconds), `last_status`, `last_error`, `created_at`, `updated_at`.
 */
type DeprecatedDeliveryFields = Pick<Delivery, 'eventId' | 'eventType' | 'nextAttemptAt' | 'lastStatus' | 'lastError' | 'createdAt' | 'updatedAt'>;

/** A delivery of the sandbox as `--json` writes it: snake_case like the API, times in ISO 8601. */
export interface DeliveryJson extends DeprecatedDeliveryFields {
  id: number;
  event_id: string;
  event_type: string;
  url: string;
  attempts: number;
  status: Delivery['status'];
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** One attempt of a delivery as `--json` writes it; `deliveryId` and `durationMs` are 0.1.0's, deprecated until 0.3.0 (the delivery's `id`, `duration_ms`). */
export interface AttemptJson extends Pick<DeliveryAttempt, 'deliveryId' | 'durationMs'> {
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

export function deliveryJson(delivery: Delivery): DeliveryJson {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    url: delivery.url,
    attempts: delivery.attempts,
    status: delivery.status,
    next_attempt_at: delivery.nextAttemptAt === null ? null : new Date(delivery.nextAttemptAt).toISOString(),
    last_status: delivery.lastStatus,
    last_error: delivery.lastError,
    created_at: delivery.createdAt,
    updated_at: delivery.updatedAt,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    nextAttemptAt: delivery.nextAttemptAt,
    lastStatus: delivery.lastStatus,
    lastError: delivery.lastError,
    createdAt: delivery.createdAt,
    updatedAt: delivery.updatedAt,
  };
}

export function attemptJson(attempt: DeliveryAttempt): AttemptJson {
  return {
    attempt: attempt.attempt,
    at: attempt.at,
    status: attempt.status,
    error: attempt.error,
    duration_ms: attempt.durationMs,
    deliveryId: attempt.deliveryId,
    durationMs: attempt.durationMs,
  };
}
