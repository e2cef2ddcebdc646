/**
 * The switches of the accuracy test's implementation: one per stated rule the kit checks, each
 * breaking exactly that rule (the variants that choose differently where the specification says
 * "not shown", and must pass, are in different-choices.ts).
 */
import { createHmac } from 'node:crypto';
import {
  hmacBase64,
  keyRole,
  type ProxiedRequest,
  type ProxiedResponse,
  type ProxyState,
  type RelayedEvent,
  retrying,
  type Variant,
} from '../helpers/mutating-implementation.js';

export type Json = Record<string, unknown>;

export function isReport(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && typeof (value as Json).id === 'string' && 'destination' in (value as Json);
}

/**
 * A request's JSON object, or the refusal of a body that is none: an implementation refuses a body
 * that is not JSON, or not an object, with a 4xx; it does not fail on it.
 */
export function jsonObjectOf(
  request: ProxiedRequest,
): { body: Json; refusal?: undefined } | { body?: undefined; refusal: { status: number; code: string; message: string } } {
  let body: unknown;
  try {
    body = JSON.parse(request.body.toString('utf8'));
  } catch {
    return { refusal: { status: 400, code: 'invalid_json', message: 'the body is not JSON' } };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { refusal: { status: 422, code: 'invalid_request', message: 'the body is no JSON object' } };
  return { body: body as Json };
}

/** Applies `change` to every report of an answer: the resource itself or the items of a list. */
export function reports(response: ProxiedResponse, change: (report: Json) => void): void {
  const body = response.json;
  if (isReport(body)) change(body);
  const data = (body as Json | undefined)?.data;
  if (Array.isArray(data)) data.filter(isReport).forEach(change);
}

function isDocument(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && typeof (value as Json).id === 'string' && (value as Json).id!.toString().startsWith('doc_');
}

/** Replaces an id prefix in every string of a value. */
function renamePrefix(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return value.replace(new RegExp(`\\b${from}_`, 'g'), `${to}_`);
  if (Array.isArray(value)) return value.map((item) => renamePrefix(item, from, to));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renamePrefix(item, from, to)]));
  return value;
}

/** An implementation whose ids of one kind carry another prefix, in answers and events alike (and understands them in requests). */
function prefixVariant(name: string, from: string, to: string, breaks: string[]): Variant {
  return {
    name,
    change: `${from}_ ids are ${to}_`,
    breaks,
    request(request) {
      request.path = request.path.replace(new RegExp(`\\b${to}_`, 'g'), `${from}_`);
      request.body = Buffer.from(request.body.toString('latin1').replace(new RegExp(`\\b${to}_`, 'g'), `${from}_`), 'latin1');
    },
    response(response) {
      response.json = renamePrefix(response.json, from, to);
    },
    event(event) {
      event.body = renamePrefix(event.body, from, to) as Json;
    },
  };
}

/** Serves a request with another key of the sandbox than the one it carries. */
function swapKey(request: ProxiedRequest, state: ProxyState, role: keyof ProxyState['keys']): void {
  request.headers.authorization = `Bearer ${state.keys[role]}`;
}

function dropEvents(name: string, types: string[], breaks: string[]): Variant {
  return { name, change: `never sends ${types.join(' or ')}`, breaks, event: (event) => (types.includes(String(event.body.type)) ? 'drop' : undefined) };
}

export function data(event: RelayedEvent): Json {
  return event.body.data as Json;
}

/** The score offset of each report the nondeterministic variant has shown. */
const scoreOffsets = new Map<string, number>();

export const BROKEN: Variant[] = [
  // part 8
  {
    name: 'ratelimit-missing-on-errors',
    change: 'no X-RateLimit-Remaining on error answers',
    breaks: ['limits.remaining-header-errors'],
    response: (response) => void (response.status >= 400 && delete response.headers['x-ratelimit-remaining']),
  },
  {
    name: 'ratelimit-missing-on-success',
    change: 'no X-RateLimit-Remaining on successful answers',
    breaks: ['limits.remaining-header'],
    response: (response) => void (response.status < 300 && delete response.headers['x-ratelimit-remaining']),
  },
  // part 5 and 7
  {
    name: 'plain-http-accepted',
    change: 'serves plain HTTP on its port',
    breaks: ['transport.https-only'],
    plainHttp: true,
  },
  {
    name: 'no-remaining-on-plain-http',
    change: 'no X-RateLimit-Remaining on its refusal of plain HTTP',
    breaks: ['limits.remaining-header-errors'],
    plainHttpWithoutRemaining: true,
  },
  {
    name: 'no-remaining-on-router-errors',
    change: 'no X-RateLimit-Remaining on the 404 of an unknown path nor on a method not allowed, as a router in front of the API answers',
    breaks: ['limits.remaining-header-errors'],
    response(response, request) {
      const routed = /^\/v1\/(reports|applicants|documents|keys)(\/[^/?]+)?(\?|$)/.test(request.path);
      if (response.status === 405 || (response.status === 404 && !routed)) delete response.headers['x-ratelimit-remaining'];
    },
  },
  {
    name: 'missing-header-accepted',
    change: 'serves a request without Authorization as the test key',
    breaks: ['auth.missing-header'],
    request: (request, state) => void (request.headers.authorization === undefined && swapKey(request, state, 'test')),
  },
  {
    name: 'malformed-header-accepted',
    change: 'takes a key without the Bearer scheme, and Basic credentials, as the test key',
    breaks: ['auth.malformed-header'],
    request: (request, state) =>
      void (request.headers.authorization !== undefined && !request.headers.authorization.startsWith('Bearer ') && swapKey(request, state, 'test')),
  },
  {
    name: 'bearer-first-word',
    change: 'takes the first word after "Bearer" as the key, so "Bearer <key> <key>" is served',
    breaks: ['auth.malformed-header'],
    request(request) {
      const words = /^Bearer (\S+)( \S+)+$/.exec(request.headers.authorization ?? '');
      if (words) request.headers.authorization = `Bearer ${words[1]}`;
    },
  },
  {
    name: 'bearer-without-key-is-invalid-key',
    change: 'answers "Bearer" without a key with 401 invalid_key',
    breaks: ['auth.malformed-header'],
    request: (request) =>
      request.headers.authorization === 'Bearer' ? { status: 401, json: { error: { code: 'invalid_key', message: 'no such key' } } } : undefined,
  },
  {
    name: 'unknown-key-accepted',
    change: 'serves an unknown key as the test key',
    breaks: ['auth.unknown-key'],
    request: (request, state) => void (keyRole(state, request.headers) === 'unknown' && swapKey(request, state, 'test')),
  },
  {
    name: 'unauthorized-code-wrong',
    change: 'answers a missing or malformed header with invalid_key',
    breaks: ['auth.missing-header', 'auth.malformed-header'],
    response(response) {
      const error = (response.json as { error?: Json } | undefined)?.error;
      if (response.status === 401 && error?.code === 'unauthorized') error.code = 'invalid_key';
    },
  },
  {
    name: 'read-only-can-write',
    change: 'lets the read-only key write',
    breaks: ['auth.read-only-cannot-write', 'auth.read-only-cannot-upload'],
    request: (request, state) => void (request.method !== 'GET' && keyRole(state, request.headers) === 'read_only' && swapKey(request, state, 'test')),
  },
  {
    name: 'read-only-can-upload',
    change: 'lets the read-only key upload documents',
    breaks: ['auth.read-only-cannot-upload'],
    request: (request, state) =>
      void (
        request.method === 'POST' &&
        request.path === '/v1/documents' &&
        keyRole(state, request.headers) === 'read_only' &&
        swapKey(request, state, 'test')
      ),
  },
  {
    name: 'read-only-cannot-read',
    change: 'refuses the read-only key reads too',
    breaks: ['auth.read-only-can-read'],
    request: (request, state) =>
      keyRole(state, request.headers) === 'read_only' ? { status: 403, json: { error: { code: 'forbidden', message: 'read-only' } } } : undefined,
  },
  {
    name: 'ip-lock-ignored',
    change: 'serves the IP-locked key from any address',
    breaks: ['auth.ip-not-allowed'],
    request: (request, state) => void (keyRole(state, request.headers) === 'ip_locked' && swapKey(request, state, 'test')),
  },
  {
    name: 'ip-lock-only-on-list',
    change: 'refuses the IP-locked key on the list only: a report by id and a write are served',
    breaks: ['auth.ip-not-allowed'],
    request: (request, state) =>
      void (
        keyRole(state, request.headers) === 'ip_locked' &&
        !(request.method === 'GET' && /^\/v1\/reports(\?|$)/.test(request.path)) &&
        swapKey(request, state, 'test')
      ),
  },
  {
    name: 'revocation-without-admin',
    change: 'lets any key revoke keys',
    // The other workspace's admin key is such a key: its revocation (of a key already revoked) succeeds too.
    breaks: ['auth.revocation-needs-admin', 'auth.workspace-admin'],
    // The key no longer works when the admin key revokes it: whether that revocation takes effect cannot be seen.
    inconclusive: ['auth.revocation-immediate'],
    request: (request, state) =>
      void (
        request.method === 'DELETE' &&
        request.path.startsWith('/v1/keys/') &&
        keyRole(state, request.headers) !== 'admin' &&
        swapKey(request, state, 'admin')
      ),
  },
  {
    name: 'revocation-not-immediate',
    change: 'keeps serving a revoked key',
    breaks: ['auth.revocation-immediate'],
    request(request, state) {
      const role = keyRole(state, request.headers) ?? '';
      if (role.startsWith('created:') && state.revoked.has(role.slice('created:'.length))) swapKey(request, state, 'test');
    },
  },
  {
    name: 'other-workspace-admin-revokes',
    change: "lets another workspace's admin key revoke this workspace's keys",
    breaks: ['auth.workspace-admin'],
    // The key no longer works when the admin key revokes it: whether that revocation takes effect cannot be seen.
    inconclusive: ['auth.revocation-immediate'],
    request: (request, state) =>
      void (
        request.method === 'DELETE' &&
        request.path.startsWith('/v1/keys/') &&
        keyRole(state, request.headers) === 'other_workspace_admin' &&
        swapKey(request, state, 'admin')
      ),
  },
  {
    name: 'revocation-fails',
    change: 'answers 500 to every revocation',
    // A refusal of the test key's revocation is any answer but a success, a 500 included (part 4 shows none).
    breaks: ['keys.revoke', 'auth.revocation-immediate'],
    request: (request) =>
      request.method === 'DELETE' && request.path.startsWith('/v1/keys/')
        ? { status: 500, json: { error: { code: 'internal_error', message: 'down' } } }
        : undefined,
  },
  {
    name: 'cross-workspace',
    change: "serves the other workspace's key with the first workspace's data",
    // Its applicant is then made in the first workspace, where a report of it completes.
    breaks: ['auth.workspace-isolation', 'auth.workspace-applicant'],
    request: (request, state) => void (keyRole(state, request.headers) === 'other_workspace' && swapKey(request, state, 'test')),
  },
  {
    name: 'cross-workspace-applicant',
    change: "makes a report of another workspace's applicant (from an applicant of the caller's own)",
    breaks: ['auth.workspace-applicant'],
    request(request, state) {
      if (request.method !== 'POST' || request.path !== '/v1/reports') return;
      const { body, refusal } = jsonObjectOf(request);
      if (refusal) return;
      const own = [...state.applicants].find(([, workspace]) => workspace === 'main')?.[0];
      if (state.applicants.get(String(body.applicant_id)) === 'other' && own) request.body = Buffer.from(JSON.stringify({ ...body, applicant_id: own }));
    },
  },
  // part 2 and 4
  prefixVariant('report-id-prefix', 'rep', 'rpt', ['reports.create', 'reports.get']),
  prefixVariant('applicant-id-prefix', 'app', 'apl', ['applicants.create', 'reports.create', 'reports.get']),
  prefixVariant('document-id-prefix', 'doc', 'dok', ['documents.upload']),
  prefixVariant('key-id-prefix', 'key', 'kid', ['keys.id-prefix']),
  {
    name: 'lowercase-destination',
    change: 'destination in lower case',
    breaks: ['reports.create', 'reports.get'],
    response: (response) => reports(response, (report) => void (report.destination = String(report.destination).toLowerCase())),
  },
  {
    name: 'visa-type-not-snake-case',
    change: 'visa_type as a title ("Tourist")',
    breaks: ['reports.create', 'reports.get'],
    response: (response) => reports(response, (report) => void (report.visa_type = String(report.visa_type).replace(/^./, (first) => first.toUpperCase()))),
  },
  {
    name: 'float-risk-score',
    change: 'risk_score with a fraction',
    breaks: ['reports.get'],
    response: (response) => reports(response, (report) => void (typeof report.risk_score === 'number' && (report.risk_score += 0.5))),
  },
  {
    name: 'score-band-not-snake-case',
    change: 'score_band as words ("Low Risk")',
    breaks: ['reports.get'],
    response: (response) =>
      reports(
        response,
        (report) =>
          void (typeof report.score_band === 'string' && (report.score_band = `${report.score_band.replace(/^./, (first) => first.toUpperCase())} Risk`)),
      ),
  },
  {
    name: 'weights-as-percentages',
    change: 'criteria weights in percent',
    breaks: ['reports.criteria-weights'],
    response: (response) =>
      reports(response, (report) =>
        (report.criteria as Json[] | null)?.forEach((criterion) => void (criterion.weight = Math.round(Number(criterion.weight) * 100))),
      ),
  },
  {
    name: 'criteria-without-weight',
    change: 'criteria without weight',
    breaks: ['reports.get', 'reports.criteria-weights'],
    response: (response) => reports(response, (report) => (report.criteria as Json[] | null)?.forEach((criterion) => void delete criterion.weight)),
  },
  {
    name: 'recommendations-not-strings',
    change: 'recommendations as objects',
    breaks: ['reports.get'],
    response: (response) =>
      reports(
        response,
        (report) => void (Array.isArray(report.recommendations) && (report.recommendations = report.recommendations.map((text) => ({ text })))),
      ),
  },
  {
    name: 'timestamps-not-utc',
    change: 'created_at in local time (+02:00)',
    breaks: ['reports.create', 'reports.get'],
    response: (response) =>
      reports(response, (report) => {
        const at = new Date(Date.parse(String(report.created_at)) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
        report.created_at = at;
      }),
  },
  {
    name: 'red-flags-not-array',
    change: 'red_flags as an object',
    breaks: ['documents.upload'],
    response: (response) => void (isDocument(response.json) && (response.json.red_flags = { count: 0 })),
  },
  {
    name: 'list-without-reports',
    change: 'GET /v1/reports answers an empty list',
    breaks: ['reports.list'],
    response: (response, request) =>
      void (
        request.method === 'GET' &&
        request.path.startsWith('/v1/reports') &&
        !/\/v1\/reports\/rep_/.test(request.path) &&
        response.status === 200 &&
        ((response.json as Json).data = [])
      ),
  },
  {
    name: 'delete-not-permanent',
    change: 'answers DELETE /v1/reports/:id without deleting',
    // A DELETE that answers 200 whatever the key also answers the read-only key 200 instead of 403 forbidden.
    breaks: ['reports.delete-permanent', 'auth.read-only-cannot-write'],
    request: (request) =>
      request.method === 'DELETE' && request.path.startsWith('/v1/reports/')
        ? { status: 200, json: { id: request.path.split('/').at(-1), object: 'report', deleted: true } }
        : undefined,
  },
  {
    name: 'delete-fails',
    change: 'answers 500 to DELETE /v1/reports/:id',
    // A read-only DELETE then gets 500, not 403 forbidden.
    breaks: ['reports.delete', 'reports.delete-permanent', 'auth.read-only-cannot-write'],
    request: (request) =>
      request.method === 'DELETE' && request.path.startsWith('/v1/reports/')
        ? { status: 500, json: { error: { code: 'internal_error', message: 'down' } } }
        : undefined,
  },
  {
    name: 'nondeterministic',
    change: 'scores differ between reports of the same input',
    breaks: ['determinism.test-key'],
    // Each report its own offset, in the order first seen: two reports of one input never score alike (a hash of the id did, 1 run in 40 or so).
    response: (response) =>
      reports(response, (report) => {
        if (typeof report.risk_score !== 'number') return;
        const id = String(report.id);
        if (!scoreOffsets.has(id)) scoreOffsets.set(id, (scoreOffsets.size % 100) + 1);
        report.risk_score = (report.risk_score + scoreOffsets.get(id)!) % 101;
      }),
  },
  {
    name: 'report-never-completes',
    change: 'reports stay queued',
    breaks: ['reports.completes'],
    // Everything else that needs a completed report cannot be judged: the kit's setup waits for one in vain.
    inconclusive: ['reports.get', 'reports.criteria-weights', 'determinism.test-key', 'events.report-completed', 'events.report-completed-fields'],
    response: (response) =>
      reports(response, (report) => {
        if (report.status !== 'completed') return;
        Object.assign(report, { status: 'queued', risk_score: null, score_band: null, criteria: null, recommendations: null });
      }),
  },
  // part 3 and 6: events
  dropEvents('no-report-created', ['report.created'], ['events.report-created']),
  dropEvents('no-report-completed', ['report.completed'], ['events.report-completed', 'events.report-completed-fields']),
  dropEvents('no-document-event', ['document.processed', 'document.parsed'], ['events.document-succeeded', 'events.document-processed-fields']),
  dropEvents('no-document-rejected', ['document.rejected'], ['documents.rejected']),
  {
    name: 'completed-without-score',
    change: 'report.completed without risk_score',
    breaks: ['events.report-completed', 'events.report-completed-fields'],
    event: (event) => void (event.body.type === 'report.completed' && delete data(event).risk_score),
  },
  {
    name: 'completed-float-score',
    change: 'report.completed risk_score with a fraction',
    breaks: ['events.report-completed', 'events.report-completed-fields'],
    event: (event) => void (event.body.type === 'report.completed' && (data(event).risk_score = Number(data(event).risk_score) + 0.5)),
  },
  {
    name: 'completed-time-not-utc',
    change: 'report.completed completed_at in local time',
    breaks: ['events.report-completed-fields'],
    event: (event) => void (event.body.type === 'report.completed' && (data(event).completed_at = '2026-01-05T11:30:00+02:00')),
  },
  {
    name: 'failed-without-message',
    change: 'report.failed with an error code but no message',
    breaks: ['events.report-failed-fields'],
    event: (event) => void (event.body.type === 'report.failed' && delete (data(event).error as Json).message),
  },
  {
    name: 'processed-status-wrong',
    change: 'document.processed with status "done"',
    breaks: ['events.document-processed-fields'],
    event: (event) => void (event.body.type === 'document.processed' && (data(event).status = 'done')),
  },
  {
    name: 'rejected-sent-as-processed',
    change: 'an unsafe file is announced as document.processed',
    breaks: ['documents.rejected'],
    event(event) {
      if (event.body.type !== 'document.rejected') return;
      event.body.type = 'document.processed';
      event.headers['service-event'] = 'document.processed';
      Object.assign(data(event), { status: 'analysed', red_flags: [] });
    },
  },
  {
    name: 'event-id-prefix',
    change: 'event ids without the evt_ prefix',
    breaks: ['events.envelope', 'events.report-created', 'events.report-completed', 'events.document-succeeded'],
    event: (event) => void (event.body.id = String(event.body.id).replace(/^evt_/, 'event-')),
  },
  {
    name: 'event-ids-not-unique',
    change: 'every event under one id',
    breaks: ['events.unique-ids'],
    event: (event) => void (event.body.id = 'evt_same'),
  },
  {
    name: 'service-event-mismatch',
    change: 'Service-Event: event',
    breaks: ['events.service-event-header'],
    event: (event) => void (event.headers['service-event'] = 'event'),
  },
  {
    name: 'signature-form-wrong',
    change: 'Service-Signature: sha256=<hex>',
    // Its signatures do not verify, so the kit runs without the secret (unauthenticated), judging the form of every delivery.
    breaks: ['events.signature-form'],
    sign: (secret, body) => ({ 'service-signature': `sha256=${hmacBase64(secret, body)}` }),
  },
  {
    name: 'no-signature',
    change: 'no signature header',
    breaks: ['events.signature-form'],
    sign: () => ({}),
  },
  {
    name: 'signature-hmac-sha1',
    change: 'v1 is HMAC-SHA1 over <t>.<body>, in hex',
    // Given the secret: an HMAC-SHA1 keyed with it is the implementation's (no third party can make one), so a wrong signature, not noise.
    givenSecret: true,
    breaks: ['events.signature-valid'],
    sign(secret, body) {
      const t = Math.floor(Date.now() / 1000);
      return { 'service-signature': `t=${t},v1=${createHmac('sha1', secret).update(`${t}.${body}`).digest('hex')}` };
    },
  },
  {
    name: 'events-not-json',
    change: 'events sent as text/plain',
    breaks: ['events.envelope', 'events.report-created', 'events.report-completed', 'events.document-succeeded'],
    event: (event) => void (event.headers['content-type'] = 'text/plain'),
  },
  {
    name: 'no-redelivery',
    change: 'an event answered badly is never sent again',
    breaks: ['events.redelivery', 'events.redelivery-4xx', 'events.redelivery-timeout'],
    slow: true,
    deliver: async (send) => void (await send(1)),
  },
  {
    name: 'redelivery-too-soon',
    change: 'an event answered badly is sent again after 1 s',
    breaks: ['events.redelivery', 'events.redelivery-4xx', 'events.redelivery-timeout'],
    slow: true,
    deliver: retrying(1_000, (status) => status >= 300),
  },
  {
    name: 'no-redelivery-after-4xx',
    change: 'only a 5xx answer, a timeout or no connection is retried, not a 4xx',
    breaks: ['events.redelivery-4xx'],
    slow: true,
    deliver: retrying(30_000, (status) => status >= 500),
  },
  {
    name: 'no-redelivery-after-timeout',
    change: 'waits for an answer as long as it takes: an answer held past 10 s is a success',
    breaks: ['events.redelivery-timeout'],
    slow: true,
    answerTimeoutMs: 60_000,
    deliver: retrying(30_000, (status) => status >= 300),
  },
];
