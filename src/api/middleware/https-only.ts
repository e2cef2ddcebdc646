import type { Middleware } from 'openapi-fetch';
import { parseBaseUrl } from '../base-url.js';

/** Refuses, before anything is sent, a request that would leave in plain HTTP for a non-loopback host. */
export const httpsOnly: Middleware = {
  onRequest({ request }) {
    parseBaseUrl(new URL(request.url).origin, 'the request URL');
  },
};
