import type { Middleware } from 'openapi-fetch';

/** Sends the bearer key of spec part 5.1 on every request. */
export function bearerAuth(key: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${key}`);
      return request;
    },
  };
}
