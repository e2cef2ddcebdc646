import type { Middleware } from '../exchange.js';

/** Sends the bearer key of spec part 5.1 on every request. */
export function bearerAuth(key: string): Middleware {
  return {
    onRequest(request) {
      request.headers.authorization = `Bearer ${key}`;
    },
  };
}
