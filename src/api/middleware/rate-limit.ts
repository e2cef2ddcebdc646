import type { Middleware } from '../exchange.js';

export interface RateLimitState {
  /** The last X-RateLimit-Remaining the API sent (spec part 8), if any. */
  remaining: number | undefined;
}

export function trackRateLimit(state: RateLimitState): Middleware {
  return {
    onResponse(_request, response) {
      const value = response.headers.get('x-ratelimit-remaining');
      if (value !== null && /^\d+$/.test(value.trim())) state.remaining = Number(value.trim());
    },
  };
}
