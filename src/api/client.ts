import type { ApiRequest, ApiResponse, Middleware, Send, StreamedBody } from './exchange.js';
import { bearerAuth } from './middleware/auth.js';
import { throwApiErrors } from './middleware/errors.js';
import { httpsOnly } from './middleware/https-only.js';
import { trace } from './middleware/trace.js';
import { DEFAULT_RETRY_POLICY, type RetryNotice, type RetryPolicy, type RetryTiming, withRetries } from './retry.js';
import type { Network } from './network.js';
import type { paths } from './schema.js';
import { createTransport } from './transport.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The paths of openapi.yaml that have an operation for `M`. */
type PathsWith<M extends Method> = { [P in keyof paths]: paths[P][M] extends undefined ? never : P }[keyof paths];
type OperationOf<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type PathParameters<O> = O extends { parameters: { path: infer T } } ? T : never;
type JsonBodyOf<O> = O extends { requestBody?: infer R } ? (NonNullable<R> extends { content: { 'application/json': infer B } } ? B : never) : never;

/** Query parameters: those undefined are not sent. */
type Query = Record<string, string | number | boolean | undefined>;

interface RequestOptions<O> {
  query?: Query;
  /** A query string, sent as it is (a next-page link's, an upload's). */
  search?: string;
  body?: JsonBodyOf<O>;
  /** A body other than JSON, streamed (a multipart upload). */
  upload?: StreamedBody;
  /** Headers beside svc's own (an upload's), lower-case names. */
  headers?: Record<string, string>;
}

/** The options of a request, required when the path has parameters. */
type RequestArguments<O> = [PathParameters<O>] extends [never] ? [options?: RequestOptions<O>] : [options: RequestOptions<O> & { path: PathParameters<O> }];
type ClientMethod<M extends Method> = <P extends PathsWith<M>>(path: P, ...options: RequestArguments<OperationOf<P, M>>) => Promise<ApiResponse>;

/**
 * The API as openapi.yaml describes it: paths, path parameters and JSON bodies typed from the
 * generated schema. Every request answers the exchange's response, read whole; a non-2xx answer or a
 * failed exchange is thrown as an ApiError.
 */
export interface ApiClient {
  GET: ClientMethod<'get'>;
  POST: ClientMethod<'post'>;
  PUT: ClientMethod<'put'>;
  PATCH: ClientMethod<'patch'>;
  DELETE: ClientMethod<'delete'>;
}

export interface ApiClientOptions {
  baseUrl: URL;
  key: string;
  /** The proxies, trust and client certificate of the command's environment. */
  network: Network;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Receives one line per exchange and per retry (for --verbose). */
  log?: ((line: string) => void) | undefined;
  /** Told of each wait before a retry, that a person may be told why nothing happens. */
  onRetryWait?: RetryNotice | undefined;
  /** When and how long retries wait: the system's clock and Math.random, or a test's. */
  retryTiming?: RetryTiming;
}

const DEFAULT_TIMEOUT_MS = 30_000;

function urlOf(baseUrl: string, path: string, options: RequestOptions<unknown> & { path?: Record<string, unknown> }): string {
  const filled = path.replace(/\{([^{}]+)\}/g, (_, name: string) => encodeURIComponent(String((options.path?.[name] as string | number | undefined) ?? '')));
  const search =
    options.search?.replace(/^\?/, '') ??
    Object.entries(options.query ?? {})
      .filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined)
      .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
      .join('&');
  return `${baseUrl}${filled}${search ? `?${search}` : ''}`;
}

/** Runs one exchange through the middlewares: requests in their order, answers and failures in the reverse one. */
async function through(middlewares: Middleware[], send: Send, request: ApiRequest): Promise<ApiResponse> {
  for (const middleware of middlewares) middleware.onRequest?.(request);
  let response: ApiResponse;
  try {
    response = await send(request);
  } catch (caught) {
    let error = caught;
    for (const middleware of [...middlewares].reverse()) error = middleware.onError ? middleware.onError(request, error) : error;
    throw error;
  }
  for (const middleware of [...middlewares].reverse()) middleware.onResponse?.(request, response);
  return response;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const notice: RetryNotice = (event) => {
    options.onRetryWait?.(event);
    options.log?.(
      `retrying ${event.request.method} ${event.request.url} in ${(event.delayMs / 1000).toFixed(1)} s (${event.reason}), attempt ${event.attempt}`,
    );
  };
  const send = withRetries(createTransport({ network: options.network, timeoutMs }), policy, notice, options.retryTiming);
  const middlewares = [throwApiErrors(timeoutMs, options.network), ...(options.log ? [trace(options.log)] : []), httpsOnly, bearerAuth(options.key)];
  const baseUrl = options.baseUrl.href.replace(/\/$/, '');

  const requestWith =
    (method: string) =>
    (path: string, requestOptions: RequestOptions<unknown> & { path?: Record<string, unknown> } = {}): Promise<ApiResponse> => {
      const headers: Record<string, string> = { accept: 'application/json', ...requestOptions.headers };
      let body: ApiRequest['body'];
      if (requestOptions.upload) body = requestOptions.upload;
      else if (requestOptions.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(requestOptions.body);
      }
      return through(middlewares, send, { method, url: urlOf(baseUrl, path, requestOptions), headers, body });
    };
  return {
    GET: requestWith('GET'),
    POST: requestWith('POST'),
    PUT: requestWith('PUT'),
    PATCH: requestWith('PATCH'),
    DELETE: requestWith('DELETE'),
  } as ApiClient;
}
