import type { IncomingMessage, ServerResponse } from 'node:http';
import { OPERATIONS, type OperationId } from '../api/operations.js';
import type { Clock } from '../core/clock.js';
import schemas from '../api/schemas.json' with { type: 'json' };
import type { SchemaName } from '../api/validate.js';
import type { Handler, Route, SandboxApp } from './app.js';
import { type Authenticator, authorise, clientAddress } from './auth.js';
import { errorBody, HttpError, sendJson } from './http.js';
import type { KeyUseRecorder } from './key-uses.js';
import { type AddressLimiter, type Plan, PLAN_LIMITS, type RateDecision, type RateLimiter } from './rate-limit.js';
import { applicantHandlers } from './routes/applicants.js';
import { documentHandlers } from './routes/documents.js';
import { keyHandlers } from './routes/keys.js';
import { reportHandlers } from './routes/reports.js';

/** A handler for every operation of openapi.yaml: one without is a compile error. */
const HANDLERS: Record<OperationId, Handler> = { ...reportHandlers, ...applicantHandlers, ...documentHandlers, ...keyHandlers };

/** A path parameter as its schema's pattern states it (`{id}` of getReport: rep_ and letters or digits), captured. */
function parameterPattern(schema: SchemaName): string {
  const { pattern } = schemas[schema] as { pattern?: string };
  return `(${pattern?.replace(/^\^/, '').replace(/\$$/, '') ?? '[^/]+'})`;
}

const ROUTES: Route[] = OPERATIONS.map((operation) => {
  const parameters: Record<string, SchemaName> = operation.parameters;
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => parameterPattern(parameters[name]!));
  return { method: operation.method, path: new RegExp(`^${path}$`), ...HANDLERS[operation.id] };
});

/** The route for a request, or 404 for an unknown path and 405 for a known path with another method. */
function findRoute(method: string, path: string): { route: Route; params: string[] } {
  const allowed: string[] = [];
  for (const route of ROUTES) {
    const match = route.path.exec(path);
    if (!match) continue;
    if (route.method === method) return { route, params: match.slice(1) };
    allowed.push(route.method);
  }
  if (allowed.length > 0) throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${path}`, undefined, { allow: allowed.join(', ') });
  throw new HttpError(404, 'not_found', `no such resource: ${path}`);
}

/** One answer for every request refused for its address's failures, whatever its key: nothing in it tells a right guess. */
function addressRefusal(ip: string, plan: Plan, decision: RateDecision): HttpError {
  const message = `requests from ${ip} without a valid key are limited to ${PLAN_LIMITS[plan].perMinute} a minute on the ${plan} plan`;
  return new HttpError(429, 'rate_limited', message, undefined, { 'retry-after': String(decision.retryAfterSeconds) });
}

export interface RequestHandling {
  app: SandboxApp;
  authenticator: Authenticator;
  limiter: RateLimiter;
  addresses: AddressLimiter;
  plan: Plan;
  keyUses: KeyUseRecorder;
  /** The time of the answers' Date header, which clients judge the keys' last use by. */
  clock: Clock;
  log?: ((line: string) => void) | undefined;
}

/**
 * Answers one request of the API: authenticates the key, applies the plan's rate limits (of the
 * caller's address, then of its workspace), records the key's use, finds the route and runs it;
 * every failure is answered with the error body.
 */
export function requestHandler({
  app,
  authenticator,
  limiter,
  addresses,
  plan,
  keyUses,
  clock,
  log,
}: RequestHandling): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  return async (request, response) => {
    const started = performance.now();
    const ip = clientAddress(request.socket.remoteAddress);
    const target = request.url ?? '/';
    const queryAt = target.indexOf('?');
    const path = queryAt < 0 ? target : target.slice(0, queryAt);
    let remaining = 0;
    let keyId = '-';
    response.setHeader('date', new Date(clock.now()).toUTCString());
    try {
      let caller;
      try {
        caller = authenticator.authenticate(request.headers.authorization, ip);
      } catch (error) {
        const decision = addresses.unauthenticated(ip);
        remaining = decision.remaining;
        throw decision.allowed ? error : addressRefusal(ip, plan, decision);
      }
      const refusal = addresses.refusal(ip, caller.key.id);
      if (refusal) {
        remaining = refusal.remaining;
        throw addressRefusal(ip, plan, refusal);
      }
      keyId = caller.key.id;
      const decision = limiter.take(caller.workspaceId);
      remaining = decision.remaining;
      if (!decision.allowed) {
        throw new HttpError(429, 'rate_limited', `the ${plan} plan allows ${PLAN_LIMITS[plan].perMinute} requests per minute`, undefined, {
          'retry-after': String(decision.retryAfterSeconds),
        });
      }
      keyUses.record(caller.key.id, ip);
      const { route, params } = findRoute(request.method ?? '', path);
      authorise(caller, route.scope);
      if (route.scope === 'admin') keyUses.flush();
      const query = new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1));
      const answer = await route.handle({ app, request, params, query, caller, workspaceId: caller.workspaceId });
      sendJson(response, answer.status, answer.body, { 'x-ratelimit-remaining': remaining });
    } catch (caught) {
      const error = caught instanceof HttpError ? caught : new HttpError(500, 'internal_error', 'the sandbox failed to handle the request');
      if (!(caught instanceof HttpError)) log?.(`error: ${(caught as Error).stack ?? String(caught)}`);
      if (!response.headersSent) sendJson(response, error.status, errorBody(error), { ...error.headers, 'x-ratelimit-remaining': remaining });
      else response.destroy();
    }
    log?.(`${request.method} ${path} ${response.statusCode} ${(performance.now() - started).toFixed(1)} ms ${keyId}`);
  };
}
