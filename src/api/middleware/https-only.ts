import { parseBaseUrl } from '../base-url.js';
import type { Middleware } from '../exchange.js';

/** Refuses, before anything is sent, a request that would leave in plain HTTP for a non-loopback host. */
export const httpsOnly: Middleware = {
  onRequest(request) {
    parseBaseUrl(new URL(request.url).origin, 'the request URL');
  },
};
