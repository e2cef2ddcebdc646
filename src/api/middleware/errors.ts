import { errorFromFailure, errorFromResponse } from '../errors.js';
import type { Middleware } from '../exchange.js';
import type { Network } from '../network.js';

/** Turns every non-2xx answer and every failed exchange into one typed ApiError. */
export function throwApiErrors(timeoutMs: number, network: Network): Middleware {
  return {
    onResponse(request, response) {
      if (!response.ok) throw errorFromResponse(request, response);
    },
    onError: (request, error) => errorFromFailure(request, error, timeoutMs, network),
  };
}
