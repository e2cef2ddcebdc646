import { ApiError, type ErrorKind } from '../core/errors.js';
import type { AnswerHeaders, ApiRequest, ApiResponse } from './exchange.js';
import { isJsonObject } from '../core/json-object.js';
import { statedCodeIn } from './error-codes.js';
import { isLoopbackHost } from './base-url.js';
import type { Network } from './network.js';
import { displayProxy, ProxyFailure } from './proxy.js';

const HINTS: Record<string, string> = {
  unauthorized: 'the Authorization header was missing or malformed — set SVC_API_KEY or `svc config set api_key`',
  invalid_key: 'the key is revoked, expired or unknown — check SVC_API_KEY or `svc config`',
  forbidden: 'the key lacks the scope for this operation: a read-only key cannot write, and key management needs the admin key',
  ip_not_allowed: "this machine's IP address is not on the key's allow-list — call from an allowed address or ask an admin to change the key",
  not_found: 'check the id; a deleted resource, or one of another workspace, is not found',
  quota_exceeded: "the plan's monthly report quota is used up — wait for the next month or upgrade the plan",
  file_too_large: 'the upload exceeds the size limit — send a smaller file',
  unsupported_media_type: 'the file type is not accepted — upload a PDF, PNG, JPEG or text file',
};

const KIND_BY_STATUS: Record<number, ErrorKind> = {
  400: 'invalidInput',
  401: 'auth',
  403: 'permission',
  404: 'notFound',
  410: 'notFound',
  409: 'invalidInput',
  413: 'invalidInput',
  415: 'invalidInput',
  422: 'invalidInput',
  429: 'rateLimited',
};

function kindForStatus(status: number): ErrorKind {
  return KIND_BY_STATUS[status] ?? (status >= 500 ? 'server' : 'failure');
}

/** A Retry-After value in seconds, from either of its forms (delta-seconds or an HTTP date). */
function parseRetryAfter(value: string | null | undefined): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** An answer's Retry-After in seconds. */
export function retryAfterSeconds(headers: AnswerHeaders): number | undefined {
  return parseRetryAfter(headers.get('retry-after'));
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value : undefined;
}

/** A text that reads as a machine code (`invalid_key`, `rate-limited`), not a sentence. */
function asCode(value: unknown): string | undefined {
  const text = textOf(value);
  return text && /^[A-Za-z][A-Za-z0-9]*([_.-][A-Za-z0-9]+)*$/.test(text) ? text : undefined;
}

/** The last segment of an RFC 9457 problem `type` URI, when it reads as a code (`…/problems/invalid_key`). */
function codeOfProblemType(type: unknown): string | undefined {
  return asCode(
    textOf(type)
      ?.replace(/[?#].*$/, '')
      .split('/')
      .at(-1),
  );
}

/**
 * The spec leaves the error body's shape open (part 7), so the code and message are looked for
 * where conventional APIs put them: `{error: {code, message}}`, `{code | error_code, message}`,
 * `{error: "code", message | error_description}`, JSON:API `{errors: [{code, title, detail}]}`, and
 * RFC 9457 problem details (`detail`, `title`, a `code` extension member, else the `type` URI); else
 * the code is one the specification states for the status, wherever the body names it, as the kit reads it.
 */
function describeBody(text: string, status: number): { code?: string; message?: string; param?: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return {};
  }
  if (!isJsonObject(body)) return {};
  const errors = Array.isArray(body.errors) ? body.errors.find(isJsonObject) : undefined;
  const inner = isJsonObject(body.error) ? body.error : errors;
  const places = inner ? [inner, body] : [body];
  const first = (...names: string[]) => {
    for (const place of places) for (const name of names) if (textOf(place[name])) return textOf(place[name]);
    return undefined;
  };
  return {
    code: first('code', 'error_code') ?? asCode(body.error) ?? codeOfProblemType(inner?.type ?? body.type) ?? statedCodeIn(body, status),
    message: first('message', 'detail', 'error_description') ?? first('title') ?? (asCode(body.error) ? undefined : textOf(body.error)),
    param: first('param', 'field'),
  };
}

/**
 * Whether a plain HTTP request was refused for being plain HTTP (part 5.2): answered 426, or in
 * words that name HTTPS. A configuration mistake, the base URL's, not the input's.
 */
function refusesPlainHttp(request: ApiRequest, response: ApiResponse, body: { code?: string; message?: string }): boolean {
  if (!request.url.startsWith('http:') || response.status < 400 || response.status >= 500) return false;
  return response.status === 426 || /https/i.test(body.code ?? '') || /plain HTTP|HTTPS (only|required)/i.test(body.message ?? '');
}

/** Whether an error body is the API's: one of the shapes describeBody reads, with a code or a message. */
function isApiBody(body: { code?: string; message?: string }): boolean {
  return body.code !== undefined || body.message !== undefined;
}

/** A 404 in words that are not the API's (a gateway's HTML page): the path asked is likely wrong, not the id. */
function notTheApiHint(request: ApiRequest, response: ApiResponse): string {
  const type = response.headers.get('content-type')?.split(';')[0]?.trim() || 'no content type';
  return `the answer is not the API's (${type}, no error code): the base URL looks wrong, or lacks a gateway's path prefix — svc asked ${request.method} ${request.url}; check --base-url, SVC_BASE_URL or the profile's base_url`;
}

const retried = (response: ApiResponse) => (response.attempts ?? 1) > 1;

function rateLimitedHint(request: ApiRequest, response: ApiResponse, retryAfter: number | undefined): string {
  const when = retryAfter === undefined ? 'in a moment' : `in ${retryAfter} s`;
  if (retried(response))
    return `svc waited and sent it ${response.attempts} times; the plan's request rate is still exceeded — run it again ${when}, or raise --retries`;
  if (request.method !== 'GET' && request.method !== 'DELETE') return `svc never sends a ${request.method} twice — run it again ${when}`;
  return `the plan's request rate is exceeded — run it again ${when}, or pass --retries to let svc wait`;
}

function serverHint(request: ApiRequest, response: ApiResponse): string {
  if (request.method !== 'GET' && request.method !== 'DELETE') {
    return `svc never sends a ${request.method} twice, as it may have been done: check whether it was (the list of what it makes) before running the command again`;
  }
  if (retried(response)) return `the service failed ${response.attempts} times (svc retried); try again later, or raise --retries`;
  return [502, 503, 504].includes(response.status)
    ? 'the service failed to answer; try again later, or pass --retries to let svc retry'
    : 'the service failed to answer; try again later';
}

/**
 * Part 7's table tells the two 401s apart by the header: `unauthorized` for one missing or malformed,
 * `invalid_key` for a key revoked, expired or unknown. A 401 that names neither is read by what was sent.
 */
function unnamed401(request: ApiRequest): string {
  return /^Bearer \S+$/.test(request.headers.authorization ?? '') ? 'invalid_key' : 'unauthorized';
}

export function errorFromResponse(request: ApiRequest, response: ApiResponse): ApiError {
  const body = describeBody(response.text, response.status);
  const plainHttp = refusesPlainHttp(request, response, body);
  const kind = plainHttp ? 'config' : kindForStatus(response.status);
  const code = body.code ?? (response.status === 401 ? unnamed401(request) : kind === 'server' ? 'server_error' : `http_${response.status}`);
  const retryAfter = retryAfterSeconds(response.headers);
  const detail = body.message ?? (response.statusText || 'no message');
  const param = body.param ? ` (field ${body.param})` : '';
  let hint = plainHttp
    ? `the service takes HTTPS only: give the base URL as ${request.url.replace(/^http:/, 'https:').replace(/(\/\/[^/]+).*$/, '$1')} (--base-url, SVC_BASE_URL or the profile's base_url)`
    : HINTS[code];
  if (!hint && kind === 'rateLimited') hint = rateLimitedHint(request, response, retryAfter);
  if (!hint && kind === 'notFound') hint = isApiBody(body) ? HINTS.not_found : notTheApiHint(request, response);
  if (!hint && kind === 'server') hint = serverHint(request, response);
  if (!hint && kind === 'invalidInput') hint = 'correct the input named above and run the command again';
  if (!hint && response.status >= 300 && response.status < 400) {
    hint = `svc follows no redirect (this one leads to ${response.headers.get('location') ?? 'no Location'}): point --base-url at the API itself`;
  }
  return new ApiError({
    kind,
    code,
    message: `${response.status} ${code}: ${detail}${param}`,
    hint,
    status: response.status,
    method: request.method,
    url: request.url,
    retryAfterSeconds: retryAfter,
    field: body.param,
  });
}

// OpenSSL's verification failures as Node reports them (UNSPECIFIED for those it has no name for, as
// a certificate signed by a leaf's key), and a name the certificate does not cover.
const TLS_CODES = new Set([
  'UNSPECIFIED',
  'INVALID_CA',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CERT_REVOKED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** True for the codes of a TLS certificate this process does not trust. */
export function isUntrustedCertificate(code: string | undefined): boolean {
  return TLS_CODES.has(code ?? '');
}

/** True for the codes of a TLS handshake the server broke off: often a client certificate it wanted, or refused. */
function isFailedHandshake(code: string | undefined): boolean {
  return (
    code === 'EPROTO' ||
    code === 'ERR_SSL_WRONG_VERSION_NUMBER' ||
    code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' ||
    code === 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE'
  );
}

/** The first `code` of an error or of its causes (a Node system error's, a TLS error's). */
export function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function innermostMessage(error: unknown): string {
  let current: unknown = error;
  while ((current as { cause?: unknown })?.cause instanceof Error) current = (current as { cause: Error }).cause;
  return (current as Error)?.message ?? String(current);
}

/** True for failures where no answer came: worth another attempt for an idempotent request. */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof ApiError) return false;
  // A proxy that answered its refusal (407, 403) will answer it again.
  if (error instanceof ProxyFailure && error.status !== undefined) return false;
  return !isUntrustedCertificate(causeCode(error));
}

function proxyError(request: ApiRequest, failure: ProxyFailure): ApiError {
  const proxy = `${displayProxy(failure.route.url)} (${failure.route.variable})`;
  const base = { kind: 'network' as const, method: request.method, url: request.url, cause: failure };
  const target = failure.target.host;
  const noProxy = `to reach ${failure.target.hostname} directly, add it to NO_PROXY`;
  if (failure.code === 'ERR_PROXY_TUNNEL') {
    const status = failure.status;
    return new ApiError({
      ...base,
      code: 'proxy_refused',
      message:
        status === undefined
          ? `the proxy ${proxy} closed the connection before opening a tunnel to ${target}`
          : `the proxy ${proxy} refused a tunnel to ${target}: it answered ${status}`,
      hint:
        status === 407
          ? `the proxy asks for credentials: give them in ${failure.route.variable} as http://user:password@host:port (percent-encoded)`
          : `check that the proxy allows HTTPS (CONNECT) to ${target}; ${noProxy}`,
    });
  }
  const reason = failure.code === 'ENOTFOUND' || failure.code === 'EAI_AGAIN' ? 'its host does not resolve' : `it cannot be reached (${failure.code})`;
  return new ApiError({
    ...base,
    code: 'proxy_unreachable',
    message: `the proxy ${proxy} did not take the request to ${target}: ${reason}`,
    hint: `check ${failure.route.variable}, or unset it if this network needs no proxy; ${noProxy}`,
  });
}

function untrustedHint(network: Network | undefined): string {
  return network?.trust.forSandbox
    ? "give the server's CA certificate with --ca-cert or SVC_CA_CERT (`svc sandbox cert` prints the embedded sandbox's)"
    : 'a corporate gateway or proxy that re-signs TLS needs its CA: install it in the system store (on Debian, copy it to /usr/local/share/ca-certificates/ and run update-ca-certificates), set NODE_EXTRA_CA_CERTS, or give it with --ca-cert or SVC_CA_CERT';
}

export function errorFromFailure(request: ApiRequest, error: unknown, timeoutMs: number, network?: Network): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ProxyFailure) return proxyError(request, error);
  const url = new URL(request.url);
  const origin = url.origin;
  const code = causeCode(error);
  const base = { kind: 'network' as const, method: request.method, url: request.url, cause: error };
  if ((error as Error)?.name === 'TimeoutError') {
    return new ApiError({
      ...base,
      code: 'timeout',
      message: `no answer from ${origin} within ${timeoutMs / 1000} s`,
      hint: 'raise --timeout, or check the network and the service',
    });
  }
  if (isUntrustedCertificate(code)) {
    const trusted = network ? `; svc trusted ${network.trust.describe()}` : '';
    return new ApiError({
      ...base,
      code: 'tls_untrusted',
      message: `the TLS certificate of ${origin} is not trusted (${code})${trusted}`,
      hint: untrustedHint(network),
    });
  }
  if (code === 'ECONNREFUSED') {
    return new ApiError({
      ...base,
      code: 'connection_refused',
      message: `nothing is listening at ${origin}`,
      hint: isLoopbackHost(url.hostname) ? 'check --base-url / SVC_BASE_URL, or start the sandbox with `svc sandbox start`' : 'check --base-url / SVC_BASE_URL',
    });
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new ApiError({
      ...base,
      code: 'dns_failure',
      message: `the host of ${origin} does not resolve`,
      hint: 'check the host name in --base-url / SVC_BASE_URL; on a network whose way out is a proxy, set HTTPS_PROXY',
    });
  }
  if (isFailedHandshake(code)) {
    const asked = network?.trust.presentsClientCertificate ? 'the client certificate svc presented was refused' : 'the server may require a client certificate';
    return new ApiError({
      ...base,
      code: 'tls_handshake_failed',
      message: `the TLS handshake with ${origin} failed (${code})`,
      hint: `${asked}: give one with --client-cert and --client-key (or SVC_CLIENT_CERT and SVC_CLIENT_KEY, or the profile's client_cert and client_key)`,
    });
  }
  const detail = code ?? innermostMessage(error);
  return new ApiError({
    ...base,
    code: 'network_error',
    message: `the request to ${origin} failed (${detail})`,
    hint: 'check the network and the service, then try again',
  });
}
