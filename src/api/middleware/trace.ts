import type { Middleware } from 'openapi-fetch';

/** With --verbose: one line per exchange on stderr, with the rate limit the API reports. */
export function trace(log: (line: string) => void): Middleware {
  const started = new Map<string, number>();
  return {
    onRequest({ id }) {
      started.set(id, performance.now());
    },
    onResponse({ id, request, response }) {
      const elapsed = Math.round(performance.now() - (started.get(id) ?? performance.now()));
      started.delete(id);
      const remaining = response.headers.get('x-ratelimit-remaining') ?? 'not sent';
      log(`${request.method} ${request.url} → ${response.status} in ${elapsed} ms · X-RateLimit-Remaining: ${remaining}`);
    },
    onError({ id, request, error }) {
      started.delete(id);
      log(`${request.method} ${request.url} → failed: ${(error as Error)?.message ?? String(error)}`);
    },
  };
}
