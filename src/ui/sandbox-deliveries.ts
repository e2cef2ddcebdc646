import type { Delivery, DeliveryAttempt } from '../sandbox/database.js';

/** A delivery of the sandbox as `--json` writes it: snake_case like the API, times in ISO 8601. */
export interface DeliveryJson {
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

/** One attempt of a delivery as `--json` writes it. */
export interface AttemptJson {
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
  };
}

export function attemptJson(attempt: DeliveryAttempt): AttemptJson {
  return { attempt: attempt.attempt, at: attempt.at, status: attempt.status, error: attempt.error, duration_ms: attempt.durationMs };
}
