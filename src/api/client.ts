import createClient, { type Client } from 'openapi-fetch';
import { bearerAuth } from './middleware/auth.js';
import { throwApiErrors } from './middleware/errors.js';
import { httpsOnly } from './middleware/https-only.js';
import { type RateLimitState, trackRateLimit } from './middleware/rate-limit.js';
import { trace } from './middleware/trace.js';
import { DEFAULT_RETRY_POLICY, type RetryNotice, type RetryPolicy, withRetries } from './retry.js';
import type { paths } from './schema.js';
import { createTransport } from './transport.js';

export type ApiClient = Client<paths>;

export interface ApiClientOptions {
  baseUrl: URL;
  key: string;
  caCertPath?: string | undefined;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Receives one line per exchange and per retry (for --verbose). */
  log?: ((line: string) => void) | undefined;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

export interface ApiSession {
  client: ApiClient;
  rateLimit: RateLimitState;
}

export function createApiClient(options: ApiClientOptions): ApiSession {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const notice: RetryNotice | undefined =
    options.log &&
    ((event) => options.log?.(`retrying ${event.request.method} ${event.request.url} in ${(event.delayMs / 1000).toFixed(1)} s (${event.reason}), attempt ${event.attempt}`));
  const fetch = withRetries(createTransport({ caCertPath: options.caCertPath, timeoutMs }), policy, notice);

  const client = createClient<paths>({
    baseUrl: options.baseUrl.href.replace(/\/$/, ''),
    fetch,
    redirect: 'error',
  });
  const rateLimit: RateLimitState = { remaining: undefined };
  // onRequest runs in this order, onResponse and onError in the reverse one.
  client.use(throwApiErrors(timeoutMs), trackRateLimit(rateLimit));
  if (options.log) client.use(trace(options.log));
  client.use(httpsOnly, bearerAuth(options.key));
  return { client, rateLimit };
}
