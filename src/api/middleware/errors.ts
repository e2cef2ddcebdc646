import type { Middleware } from 'openapi-fetch';
import { errorFromFailure, errorFromResponse } from '../errors.js';

/** Turns every non-2xx answer and every failed exchange into one typed ApiError. */
export function throwApiErrors(timeoutMs: number): Middleware {
  return {
    async onResponse({ request, response }) {
      if (!response.ok) throw await errorFromResponse(request, response);
    },
    onError({ request, error }) {
      return errorFromFailure(request, error, timeoutMs);
    },
  };
}
