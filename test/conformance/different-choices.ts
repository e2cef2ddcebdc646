/**
 * Implementations that choose differently from openapi.yaml wherever the specification says "not
 * shown", and break no stated rule: the kit must pass them at level spec, given their fixtures.
 * Each is the sandbox behind the accuracy test's proxy, translating its own shapes to the sandbox's.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { hmacBase64, type ProxiedRequest, type ProxiedResponse, retrying, type Variant } from '../helpers/mutating-implementation.js';
import { data, isReport, type Json, jsonObjectOf, reports } from './variants.js';

/** A multipart body the sandbox takes, made from an upload in another encoding. */
export function asSandboxUpload(request: ProxiedRequest, fields: Record<string, string>, file: { name: string; bytes: Buffer }): void {
  const boundary = `proxy-${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = Object.entries(fields).map(([name, value]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
  );
  parts.push(
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    file.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  request.body = Buffer.concat(parts);
  request.headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
  delete request.headers['content-length'];
}

/** Renames a visa type both ways: the implementation's own name outside, the sandbox's inside. */
function visaTypes(own: string, sandbox: string) {
  return {
    request(request: ProxiedRequest): { status: number; json: unknown } | undefined {
      if (request.method !== 'POST' || request.path !== '/v1/reports') return undefined;
      const { body, refusal } = jsonObjectOf(request);
      if (refusal) return { status: refusal.status, json: { code: refusal.code, message: refusal.message } };
      if (body.visa_type !== own) return { status: 422, json: { code: 'unknown_visa_type', message: `visa_type must be ${own}` } };
      request.body = Buffer.from(JSON.stringify({ ...body, visa_type: sandbox }));
      return undefined;
    },
    value: (value: unknown) => (value === sandbox ? own : value),
  };
}

/**
 * Two reports a page, so that the kit has to page to find its report; `cursor` is the query
 * parameter of the variant's own next links, turned into the sandbox's starting_after.
 */
/** Where each report the proxies listed stands in a walk (newest first), kept after another run deletes it. */
const walkKeys = new Map<string, string>();
/** The report each list request asked to start after (null: the first page). */
const walkStarts = new WeakMap<ProxiedRequest, string | null>();
const walkKey = (report: Json) => `${String(report.created_at)} ${String(report.id)}`;

/**
 * Lists two reports a page, after the report named by the query parameter `cursor`. The page is cut
 * here (`twoReportsOf`) from the sandbox's first hundred: every variant shares the sandbox's
 * workspace, and the sandbox refuses as starting_after a report that another run deleted meanwhile,
 * where this walk still knows where that report stood.
 */
function twoReportsAPage(request: ProxiedRequest, cursor: string): void {
  const list = /^\/v1\/reports(\?.*)?$/.exec(request.path);
  if (request.method !== 'GET' || !list) return;
  walkStarts.set(request, new URLSearchParams(list[1]?.slice(1) ?? '').get(cursor));
  request.path = '/v1/reports?limit=100';
}

function twoReportsOf(response: ProxiedResponse, request: ProxiedRequest): void {
  const after = walkStarts.get(request);
  const body = response.json as Json | undefined;
  if (after === undefined || response.status !== 200 || !body || !Array.isArray(body.data)) return;
  const items = (body.data as Json[]).toSorted((a, b) => walkKey(b).localeCompare(walkKey(a)));
  for (const item of items) walkKeys.set(String(item.id), walkKey(item));
  const from = after === null ? undefined : walkKeys.get(after);
  const rest = after === null ? items : from === undefined ? [] : items.filter((item) => walkKey(item) < from);
  response.json = { ...body, data: rest.slice(0, 2), has_more: rest.length > 2 };
}

const KNOWN_PATH = /^\/v1\/(reports|applicants|documents|keys)(\/[^/?]+)?(\?|$)/;

const SCHENGEN = visaTypes('schengen_short_stay', 'tourist');

function toSandboxApplicant(own: Json): Json {
  const passport = (own.passport ?? {}) as Json;
  const income = (own.income ?? {}) as Json;
  return {
    given_names: own.first_name,
    surname: own.family_name,
    date_of_birth: own.birth_date,
    nationality: own.citizenship,
    passport_number: passport.number,
    passport_expiry: passport.expires,
    occupation: own.occupation,
    employment_status: own.employment,
    monthly_income: income.monthly,
    savings: income.savings,
    currency: income.currency,
    travel_history: ((own.trips ?? []) as Json[]).map((trip) => ({ ...trip, overstayed: false })),
    previous_refusals: 0,
  };
}

/** An RFC 9457 problem whose `type` URI ends with the error code. */
function asProblem(response: ProxiedResponse): void {
  const error = (response.json as { error?: Json } | undefined)?.error;
  if (!error) return;
  response.json = {
    type: `https://problems.visa.example/${String(error.code)}`,
    title: String(error.code).replace(/_/g, ' '),
    status: response.status,
    detail: error.message,
  };
  response.headers['content-type'] = 'application/problem+json';
}

export const DIFFERENT_CHOICES: Variant = {
  name: 'different-choices',
  change:
    'its own applicant fields and visa types, JSON-only uploads, keys made only in the dashboard, HTTPS-only subscribers that get a retry 28 s later, RFC 9457 problem+json errors with the code in the type URI, ' +
    'a vendor media type (application/vnd.visa.v1+json; charset=utf-8) on successes, 202 for reports and uploads, 200 for applicants, 204 for deletions, 410 for a deleted report, +00:00 timestamps, queued reports without score fields, ' +
    'a list {data, included, links} of JSON:API resources paged by links.next, only document.parsed, the short report.completed without completed_at, report.created wrapping the report, ' +
    'document.rejected naming the document inside an object, an attempt counter in each delivery, X-Service-Signature signed over the body in base64, created_at only on report.completed',
  breaks: [],
  // Only document.parsed, whose payload is not shown, announces its documents. Its plan allows more
  // requests a minute than the kit spends to provoke a 429, so asked to provoke one it sees none, and says so.
  skips: ['events.document-processed-fields', 'limits.remaining-header-429'],
  skipReasons: { 'limits.remaining-header-429': /^no 429 (provoked: X-RateLimit-Remaining was \d+|within 240 requests)/ },
  provoke429: true,
  notes: {
    'events.signature-valid':
      /^\d+ deliveries signed with HMAC-SHA256 over the raw body alone, in base64; a signature of the body alone does not bind the timestamp, so replay protection rests on dropping duplicate event ids$/,
  },
  slow: true,
  httpsSubscribers: true,
  dashboardKeys: true,
  attemptCounter: true,
  deliver: retrying(28_000, (status) => status >= 300),
  fixtures: `
applicant:
  first_name: Anna Maria
  family_name: Eriksson
  birth_date: "1984-08-12"
  citizenship: SE
  passport: { number: L898902C3, expires: "2039-08-11" }
  occupation: Software engineer
  employment: employed
  income: { monthly: 4800, savings: 21000, currency: EUR }
  trips: [{ country: US, year: 2019 }, { country: JP, year: 2023 }]
report:
  destination: FR
  visa_type: schengen_short_stay
  purpose: holiday in Paris and Lyon, visiting museums
document:
  encoding: json
  body: { applicant_id: "{{applicant_id}}", kind: passport, name: "{{file_name}}", content: "{{file_base64}}" }
`,
  request(request) {
    const problem = (status: number, code: string, detail: string) => ({
      status,
      headers: { 'content-type': 'application/problem+json' },
      json: { type: `https://problems.visa.example/${code}`, title: code, status, detail },
    });
    if (request.path.startsWith('/v1/keys') && !(request.method === 'DELETE' && /^\/v1\/keys\/[^/]+$/.test(request.path)))
      return problem(404, 'not_found', 'keys are managed in the dashboard');
    if (request.method === 'POST' && request.path === '/v1/applicants') {
      const { body, refusal } = jsonObjectOf(request);
      if (refusal) return problem(refusal.status, refusal.code, refusal.message);
      if ('given_names' in body) return problem(422, 'unknown_field', 'given_names is not a field of an applicant');
      request.body = Buffer.from(JSON.stringify({ ...(body.id === undefined ? {} : { id: body.id }), ...toSandboxApplicant(body) }));
    }
    const visa = SCHENGEN.request(request);
    if (visa) return problem(visa.status, String((visa.json as Json).code), String((visa.json as Json).message));
    if (request.method === 'POST' && request.path === '/v1/documents') {
      if (!/^application\/json\b/.test(request.headers['content-type'] ?? '')) return problem(415, 'unsupported_media_type', 'uploads are JSON');
      const { body, refusal } = jsonObjectOf(request);
      if (refusal) return problem(refusal.status, refusal.code, refusal.message);
      asSandboxUpload(
        request,
        { type: String(body.kind), applicant_id: String(body.applicant_id) },
        { name: String(body.name), bytes: Buffer.from(String(body.content), 'base64') },
      );
    }
    twoReportsAPage(request, 'page[after]');
    return undefined;
  },
  response(response, request) {
    twoReportsOf(response, request);
    if (response.status === 201) response.status = request.path === '/v1/applicants' ? 200 : 202;
    if (request.method === 'DELETE' && response.status === 200) {
      response.status = 204;
      response.json = undefined;
      response.text = '';
    }
    if (response.status === 404 && KNOWN_PATH.test(request.path)) response.status = 410;
    if (response.status >= 400) asProblem(response);
    else response.headers['content-type'] = 'application/vnd.visa.v1+json; charset=utf-8';
    const retime = (value: unknown) => (typeof value === 'string' && /Z$/.test(value) ? value.replace(/Z$/, '+00:00') : value);
    reports(response, (report) => {
      report.created_at = retime(report.created_at);
      report.completed_at = retime(report.completed_at);
      report.visa_type = SCHENGEN.value(report.visa_type);
      for (const name of ['risk_score', 'score_band', 'criteria', 'recommendations', 'error', 'completed_at']) if (report[name] === null) delete report[name];
    });
    const body = response.json as Json | undefined;
    if (request.method === 'POST' && request.path === '/v1/applicants' && response.status < 300 && body) {
      response.json = { id: body.id, first_name: body.given_names, family_name: body.surname, citizenship: body.nationality, created: retime(body.created_at) };
    }
    if (request.method === 'GET' && request.path.startsWith('/v1/reports?') && response.status === 200 && body) {
      const items = (body.data as Json[]).map(({ id, ...attributes }) => ({ type: 'reports', id, attributes }));
      const last = items.at(-1)?.id;
      response.json = {
        data: items,
        included: [],
        links: { self: '/v1/reports', next: body.has_more && last ? `/v1/reports?page%5Bafter%5D=${String(last)}` : null },
      };
    }
  },
  event(event) {
    const type = String(event.body.type);
    if (type === 'document.processed') return 'drop';
    if (type === 'report.completed') event.body.data = { report_id: data(event).id, risk_score: data(event).risk_score };
    if (type === 'report.created') event.body.data = { report: { ...data(event), visa_type: SCHENGEN.value(data(event).visa_type) } };
    if (type === 'document.rejected') event.body.data = { document: { ref: data(event).id }, reason: 'unsafe' };
    if (type !== 'report.completed') delete event.body.created_at;
    return undefined;
  },
  sign: (secret, body) => ({ 'x-service-signature': `t=${Math.floor(Date.now() / 1000)},v1=${hmacBase64(secret, body)}` }),
};

const VISITOR = visaTypes('temporary_visitor', 'tourist');

export const OTHER_CHOICES: Variant = {
  name: 'other-choices',
  change:
    'raw uploads (the file as the body, its applicant and kind in headers), visa types of its own, errors as {code, message}, 200 for every creation, 202 {id, status} for deletions, ' +
    'the list as a bare array paged by a Link header, +0000 timestamps, report.created carrying only the report id, v1 in base64 over <t>.<body>',
  breaks: [],
  // --fast: the delays of the specification, and a provoked 429's window, are not waited out.
  skips: ['events.redelivery', 'events.redelivery-4xx', 'events.redelivery-timeout', 'limits.remaining-header-429'],
  notes: { 'events.signature-valid': /^\d+ deliveries signed with HMAC-SHA256 over <t>\.<raw body>, in base64$/ },
  fixtures: `
report:
  destination: JP
  visa_type: temporary_visitor
  purpose: Ten days in Kyoto and Tokyo for the cherry blossom
document:
  encoding: raw
  headers:
    content-type: "{{content_type}}"
    x-applicant-id: "{{applicant_id}}"
    x-document-kind: passport
    x-file-name: "{{file_name}}"
`,
  request(request) {
    const visa = VISITOR.request(request);
    if (visa) return visa;
    if (request.method === 'POST' && request.path === '/v1/documents') {
      if (/^multipart\//.test(request.headers['content-type'] ?? ''))
        return { status: 415, json: { code: 'unsupported_media_type', message: 'send the file itself as the body' } };
      asSandboxUpload(
        request,
        { type: request.headers['x-document-kind'] ?? '', applicant_id: request.headers['x-applicant-id'] ?? '' },
        { name: request.headers['x-file-name'] ?? 'upload', bytes: request.body },
      );
    }
    twoReportsAPage(request, 'after');
    return undefined;
  },
  response(response, request) {
    twoReportsOf(response, request);
    if (response.status === 201) response.status = 200;
    const error = (response.json as { error?: Json } | undefined)?.error;
    if (response.status >= 400 && error) response.json = { code: error.code, message: error.message };
    if (request.method === 'DELETE' && response.status === 200) {
      response.status = 202;
      response.json = { id: request.path.split('/').at(-1), status: 'deletion_accepted' };
    }
    const retime = (value: unknown) => (typeof value === 'string' && /Z$/.test(value) ? value.replace(/Z$/, '+0000') : value);
    reports(response, (report) => {
      report.created_at = retime(report.created_at);
      report.completed_at = retime(report.completed_at);
      report.visa_type = VISITOR.value(report.visa_type);
    });
    const body = response.json as Json | undefined;
    if (request.method === 'GET' && request.path.startsWith('/v1/reports?') && response.status === 200 && body) {
      const items = body.data as Json[];
      const last = items.filter(isReport).at(-1)?.id;
      response.json = items;
      if (body.has_more && last) response.headers.link = `</v1/reports?after=${String(last)}>; rel="next"`;
    }
  },
  event(event) {
    if (event.body.type === 'report.created') event.body.data = { id: data(event).id };
    const retime = (value: unknown) => (typeof value === 'string' ? value.replace(/Z$/, '+0000') : value);
    event.body.created_at = retime(event.body.created_at);
    return undefined;
  },
  sign(secret, body) {
    const t = Math.floor(Date.now() / 1000);
    return { 'service-signature': `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('base64')}` };
  },
};
