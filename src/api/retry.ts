import { type Clock, systemClock } from '../core/clock.js';
import { isConnectionFailure, retryAfterSeconds } from './errors.js';
import type { ApiRequest, ApiResponse, Send } from './exchange.js';

export interface RetryPolicy {
  /** Attempts after the first; 0 disables retries. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the 429 is reported instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { retries: 3, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

/** Only these are retried: a POST that may have reached the server is never sent twice (a duplicate report costs credits). */
const IDEMPOTENT_METHODS = new Set(['GET', 'DELETE']);
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

type Outcome = { response: ApiResponse } | { error: unknown };
export type RetryNotice = (notice: { request: ApiRequest; attempt: number; delayMs: number; reason: string }) => void;

/** What a retry's wait depends on besides the policy: the time, and the jitter's random source ([0, 1), as Math.random). */
export interface RetryTiming {
  clock: Clock;
  random: () => number;
}

const SYSTEM_TIMING: RetryTiming = { clock: systemClock, random: Math.random };

function delayBefore(retry: number, outcome: Outcome, policy: RetryPolicy, random: () => number): number | undefined {
  if ('response' in outcome) {
    const retryAfter = retryAfterSeconds(outcome.response.headers);
    if (retryAfter !== undefined) {
      const delay = retryAfter * 1000;
      return delay <= policy.maxRetryAfterMs ? delay : undefined;
    }
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return ceiling / 2 + random() * (ceiling / 2);
}

function worthRetrying(outcome: Outcome): boolean {
  return 'response' in outcome ? RETRYABLE_STATUSES.has(outcome.response.status) : isConnectionFailure(outcome.error);
}

function reasonOf(outcome: Outcome): string {
  return 'response' in outcome ? `status ${outcome.response.status}` : String((outcome.error as Error)?.cause ?? outcome.error);
}

/**
 * Retries GET and DELETE on 429, 502, 503, 504 and connection failures, with exponential backoff
 * and jitter, honouring Retry-After; the number of attempts is bounded by the policy.
 */
export function withRetries(send: Send, policy: RetryPolicy, notice?: RetryNotice, timing: RetryTiming = SYSTEM_TIMING): Send {
  return async (request) => {
    if (!IDEMPOTENT_METHODS.has(request.method) || policy.retries === 0) return send(request);
    const attempt = async (): Promise<Outcome> => {
      try {
        return { response: await send(request) };
      } catch (error) {
        return { error };
      }
    };
    let outcome = await attempt();
    let attempts = 1;
    for (; attempts <= policy.retries && worthRetrying(outcome); attempts++) {
      const delayMs = delayBefore(attempts, outcome, policy, timing.random);
      if (delayMs === undefined) break;
      notice?.({ request, attempt: attempts + 1, delayMs, reason: reasonOf(outcome) });
      await timing.clock.sleep(delayMs);
      outcome = await attempt();
    }
    if ('response' in outcome) return { ...outcome.response, attempts };
    throw outcome.error;
  };
}
