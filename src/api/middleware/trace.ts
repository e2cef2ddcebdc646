import type { ApiRequest, Middleware } from '../exchange.js';

/** With --verbose: one line per exchange on stderr, with the rate limit the API reports. */
export function trace(log: (line: string) => void): Middleware {
  const started = new WeakMap<ApiRequest, number>();
  return {
    onRequest(request) {
      started.set(request, performance.now());
    },
    onResponse(request, response) {
      const elapsed = Math.round(performance.now() - (started.get(request) ?? performance.now()));
      const remaining = response.headers.get('x-ratelimit-remaining') ?? 'not sent';
      log(`${request.method} ${request.url} → ${response.status} in ${elapsed} ms · X-RateLimit-Remaining: ${remaining}`);
    },
    onError(request, error) {
      log(`${request.method} ${request.url} → failed: ${(error as Error)?.message ?? String(error)}`);
      return error;
    },
  };
}
