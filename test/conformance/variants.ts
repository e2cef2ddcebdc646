/**
 * The switches of the accuracy test's implementation: one per stated rule the kit checks, each
 * breaking exactly that rule, and one variant that makes other choices wherever the specification
 * says "not shown" (it must pass at level spec).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { hashOf, hmacBase64, keyRole, type ProxiedRequest, type ProxiedResponse, type ProxyState, type RelayedEvent, type Variant } from '../helpers/mutating-implementation.js';

type Json = Record<string, unknown>;

function isReport(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && typeof (value as Json).id === 'string' && 'destination' in (value as Json);
}

/** Applies `change` to every report of an answer: the resource itself or the items of a list. */
function reports(response: ProxiedResponse, change: (report: Json) => void): void {
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

function data(event: RelayedEvent): Json {
  return event.body.data as Json;
}

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
    name: 'missing-header-accepted',
    change: 'serves a request without Authorization as the test key',
    breaks: ['auth.missing-header'],
    request: (request, state) => void (request.headers.authorization === undefined && swapKey(request, state, 'test')),
  },
  {
    name: 'malformed-header-accepted',
    change: 'takes a key without the Bearer scheme, and Basic credentials, as the test key',
    breaks: ['auth.malformed-header'],
    request: (request, state) => void (request.headers.authorization !== undefined && !request.headers.authorization.startsWith('Bearer ') && swapKey(request, state, 'test')),
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
    breaks: ['auth.read-only-cannot-write'],
    request: (request, state) => void (request.method !== 'GET' && keyRole(state, request.headers) === 'read_only' && swapKey(request, state, 'test')),
  },
  {
    name: 'read-only-cannot-read',
    change: 'refuses the read-only key reads too',
    breaks: ['auth.read-only-can-read'],
    request: (request, state) => (keyRole(state, request.headers) === 'read_only' ? { status: 403, json: { error: { code: 'forbidden', message: 'read-only' } } } : undefined),
  },
  {
    name: 'ip-lock-ignored',
    change: "serves the IP-locked key from any address",
    breaks: ['auth.ip-not-allowed'],
    request: (request, state) => void (keyRole(state, request.headers) === 'ip_locked' && swapKey(request, state, 'test')),
  },
  {
    name: 'revocation-without-admin',
    change: 'lets any key revoke keys',
    breaks: ['auth.revocation-needs-admin'],
    request: (request, state) => void (request.method === 'DELETE' && request.path.startsWith('/v1/keys/') && keyRole(state, request.headers) !== 'admin' && swapKey(request, state, 'admin')),
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
    name: 'revocation-fails',
    change: 'answers 500 to every revocation',
    breaks: ['keys.revoke', 'auth.revocation-immediate', 'auth.revocation-needs-admin'],
    request: (request) => (request.method === 'DELETE' && request.path.startsWith('/v1/keys/') ? { status: 500, json: { error: { code: 'internal_error', message: 'down' } } } : undefined),
  },
  {
    name: 'cross-workspace',
    change: "serves the other workspace's key with the first workspace's data",
    breaks: ['auth.workspace-isolation'],
    request: (request, state) => void (keyRole(state, request.headers) === 'other_workspace' && swapKey(request, state, 'test')),
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
    response: (response) => reports(response, (report) => void (typeof report.score_band === 'string' && (report.score_band = `${report.score_band.replace(/^./, (first) => first.toUpperCase())} Risk`))),
  },
  {
    name: 'weights-as-percentages',
    change: 'criteria weights in percent',
    breaks: ['reports.criteria-weights'],
    response: (response) => reports(response, (report) => (report.criteria as Json[] | null)?.forEach((criterion) => void (criterion.weight = Math.round(Number(criterion.weight) * 100)))),
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
    response: (response) => reports(response, (report) => void (Array.isArray(report.recommendations) && (report.recommendations = report.recommendations.map((text) => ({ text }))))),
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
    response: (response) => void (isDocument(response.json) && ((response.json as Json).red_flags = { count: 0 })),
  },
  {
    name: 'list-without-reports',
    change: 'GET /v1/reports answers an empty list',
    breaks: ['reports.list'],
    response: (response, request) => void (request.method === 'GET' && request.path.startsWith('/v1/reports') && !/\/v1\/reports\/rep_/.test(request.path) && response.status === 200 && ((response.json as Json).data = [])),
  },
  {
    name: 'delete-not-permanent',
    change: 'answers DELETE /v1/reports/:id without deleting',
    // A DELETE that answers 200 whatever the key also answers the read-only key 200 instead of 403 forbidden.
    breaks: ['reports.delete-permanent', 'auth.read-only-cannot-write'],
    request: (request) => (request.method === 'DELETE' && request.path.startsWith('/v1/reports/') ? { status: 200, json: { id: request.path.split('/').at(-1), object: 'report', deleted: true } } : undefined),
  },
  {
    name: 'delete-fails',
    change: 'answers 500 to DELETE /v1/reports/:id',
    // A read-only DELETE then gets 500, not 403 forbidden.
    breaks: ['reports.delete', 'reports.delete-permanent', 'auth.read-only-cannot-write'],
    request: (request) => (request.method === 'DELETE' && request.path.startsWith('/v1/reports/') ? { status: 500, json: { error: { code: 'internal_error', message: 'down' } } } : undefined),
  },
  {
    name: 'nondeterministic',
    change: 'scores differ between reports of the same input',
    breaks: ['determinism.test-key'],
    response: (response) => reports(response, (report) => void (typeof report.risk_score === 'number' && (report.risk_score = (report.risk_score + hashOf(String(report.id))) % 101))),
  },
  {
    name: 'report-never-completes',
    change: 'reports stay queued',
    // Everything that needs a completed report fails with it.
    breaks: ['reports.completes', 'reports.get', 'reports.criteria-weights', 'determinism.test-key', 'events.report-completed', 'events.report-completed-fields'],
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
    name: 'events-not-json',
    change: 'events sent as text/plain',
    breaks: ['events.envelope', 'events.report-created', 'events.report-completed', 'events.document-succeeded'],
    event: (event) => void (event.headers['content-type'] = 'text/plain'),
  },
  {
    name: 'no-redelivery',
    change: 'an event answered 503 is never sent again',
    breaks: ['events.redelivery'],
    slow: true,
    deliver: async (send) => {
      await send();
      return 200;
    },
  },
  {
    name: 'redelivery-too-soon',
    change: 'an event answered 503 is sent again after 1 s',
    breaks: ['events.redelivery'],
    slow: true,
    deliver: async (send) => {
      if ((await send()) >= 300) {
        await sleep(1_000);
        await send();
      }
      return 200;
    },
  },
];

/** Other choices wherever the specification says "not shown": a conforming implementation the kit must pass. */
export const DIFFERENT_CHOICES: Variant = {
  name: 'different-choices',
  change:
    '200 for creations, 202 for uploads, 204 without body for deletions and revocations, errors as {code, message}, the list as a bare array, 410 for a deleted report, +00:00 timestamps, queued reports without score fields; only document.parsed, the shorter report.completed, report.created wrapping the report, X-Service-Signature signed over the body in base64, created_at only on report.completed',
  breaks: [],
  response(response, request) {
    if (response.status === 201) response.status = request.path === '/v1/documents' ? 202 : 200;
    if (request.method === 'DELETE' && response.status === 200) {
      response.status = 204;
      response.json = undefined;
      response.text = '';
    }
    if (response.status === 404) response.status = 410;
    const error = (response.json as { error?: Json } | undefined)?.error;
    if (response.status >= 400 && error) response.json = { code: error.code, message: error.message };
    if (request.method === 'GET' && /^\/v1\/reports(\?|$)/.test(request.path) && response.status === 200) response.json = (response.json as Json).data;
    const retime = (value: unknown) => (typeof value === 'string' && /Z$/.test(value) ? value.replace(/Z$/, '+00:00') : value);
    reports(response, (report) => {
      report.created_at = retime(report.created_at);
      report.completed_at = retime(report.completed_at);
      for (const name of ['risk_score', 'score_band', 'criteria', 'recommendations', 'error', 'completed_at']) if (report[name] === null) delete report[name];
    });
  },
  event(event) {
    const type = String(event.body.type);
    if (type === 'document.processed') return 'drop';
    if (type === 'report.completed') event.body.data = { report_id: data(event).id, risk_score: data(event).risk_score };
    if (type === 'report.created') event.body.data = { report: event.body.data };
    if (type !== 'report.completed') delete event.body.created_at;
  },
  sign: (secret, body) => ({ 'x-service-signature': `t=${Math.floor(Date.now() / 1000)},v1=${hmacBase64(secret, body)}` }),
};
