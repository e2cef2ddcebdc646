/**
 * An implementation that chose as issue 35 found one behind a gateway: it takes a document as the
 * raw file, its kind and applicant in the query string (`POST /v1/documents?type=passport&applicant_id=app_…`),
 * and refuses a form or JSON with 415, and a file that is no PDF, JPEG or PNG too (so no document of
 * its is ever rejected after upload, and no report fails of one); a report for an unknown destination
 * ends `error` and sends report.failed; errors are `{"message": …, "error_code": …}` with the stated
 * codes; it has no key API but the stated DELETE /v1/keys/{id} (keys are made in the dashboard); it
 * signs both Service-Signature and X-Service-Signature. Given a fixture that says so, the kit must
 * pass it, and the CLI's commands work against it. Its upload mutants run with the kit's own
 * multipart upload, which it refuses: only the checks that need a document are then inconclusive,
 * and a stated rule broken elsewhere still fails. Its other mutants keep its fixture.
 */
import { createHmac } from 'node:crypto';
import { detectFormat } from '../../src/documents/format.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import type { ProxiedRequest, ProxiedResponse, Variant } from '../helpers/mutating-implementation.js';
import { steppingClock } from '../helpers/clock.js';
import { asSandboxUpload } from './different-choices.js';
import { data, type Json, reports } from './variants.js';

/** The formats of a passport the gateway takes at upload. */
const TAKEN_FORMATS = ['application/pdf', 'image/jpeg', 'image/png'];

/** An error as the gateway answers it. */
function gatewayError(status: number, code: string, message: string): { status: number; json: unknown } {
  return { status, json: { message, error_code: code } };
}

/** The sandbox's errors (`{"error": {"code", "message"}}`) as the gateway answers them; a refused key is said to be revoked. */
function gatewayErrors(response: ProxiedResponse): void {
  const error = (response.json as { error?: Json } | undefined)?.error;
  if (response.status < 400 || typeof error !== 'object' || error === null) return;
  const code = String(error.code);
  response.json = gatewayError(response.status, code, code === 'invalid_key' ? 'This API key has been revoked' : String(error.message)).json;
}

/** No key API but the stated DELETE /v1/keys/{id}: keys are made in the dashboard. */
function onlyKeyRevocation(request: ProxiedRequest): { status: number; json: unknown } | undefined {
  if (!request.path.startsWith('/v1/keys') || (request.method === 'DELETE' && /^\/v1\/keys\/[^/?]+$/.test(request.path))) return undefined;
  return gatewayError(404, 'not_found', 'keys are managed in the dashboard');
}

/** Turns a query-string upload into the sandbox's form; refuses a form or JSON as the implementation does. */
function queryStringUpload(request: ProxiedRequest): { status: number; json: unknown } | undefined {
  const upload = /^\/v1\/documents(\?.*)?$/.exec(request.path);
  if (request.method !== 'POST' || !upload) return undefined;
  if (/^(multipart\/|application\/json)/.test(request.headers['content-type'] ?? ''))
    return gatewayError(415, 'unsupported_media_type', 'send the file as the body, its type and applicant_id in the query string');
  if (!TAKEN_FORMATS.includes(detectFormat(request.body) ?? '')) return gatewayError(415, 'unsupported_media_type', 'a passport is a PDF, JPEG or PNG file');
  const query = new URLSearchParams(upload[1] ?? '');
  request.path = '/v1/documents';
  asSandboxUpload(request, { type: query.get('type') ?? '', applicant_id: query.get('applicant_id') ?? '' }, { name: 'upload', bytes: request.body });
  return undefined;
}

/** The failed outcome's status is `error` (part 3 does not name it). */
function failedAsError(response: ProxiedResponse): void {
  reports(response, (report) => void (report.status === 'failed' && (report.status = 'error')));
}

/** Both names part 6 gives, each signed as openapi.yaml signs (HMAC-SHA256 over `<t>.<body>`, hex). */
function bothSignatureHeaders(secret: string, body: string): Record<string, string> {
  const header = signatureHeader(secret, body);
  return { 'service-signature': header, 'x-service-signature': header };
}

export const GATEWAY: Variant = {
  name: 'gateway',
  change:
    'the raw file as the upload body, its type and applicant_id in the query string; a form or JSON, or a file not PDF, JPEG or PNG, refused with 415; a failed report ends error; ' +
    'errors as {message, error_code}; keys made only in the dashboard; Service-Signature and X-Service-Signature both sent',
  breaks: [],
  // --fast: the specification's delays, and a provoked 429's window, are not waited out.
  skips: ['events.redelivery', 'events.redelivery-4xx', 'events.redelivery-timeout', 'limits.remaining-header-429'],
  fixtures: [
    'document:\n  encoding: raw\n  query: { type: passport, applicant_id: "{{applicant_id}}" }\n',
    // The kit's rejected document is refused at upload: the input that fails a report is an unknown destination.
    'failing_report:\n  report: { destination: ZZ }\n',
  ].join(''),
  dashboardKeys: true,
  request: (request) => onlyKeyRevocation(request) ?? queryStringUpload(request),
  response: (response) => {
    failedAsError(response);
    gatewayErrors(response);
  },
  notes: {
    'documents.rejected': /^refused at upload: 415$/,
    'events.report-failed': /^report\.failed for rep_\w+ \(the failing_report of --fixtures\), which ended "error"$/,
    'events.signature-valid': /^\d+ deliveries signed with HMAC-SHA256 over <t>\.<raw body>, in hex, in Service-Signature and X-Service-Signature$/,
  },
  sign: bothSignatureHeaders,
};

/** Issue 35 item 5: Service-Signature right, X-Service-Signature in HMAC-SHA1 with the secret, which a receiver reading that name refuses. */
export const GATEWAY_X_SIGNATURE_SHA1: Variant = {
  ...GATEWAY,
  name: 'gateway-x-signature-sha1',
  change: 'as gateway, but X-Service-Signature is HMAC-SHA1 with the webhook secret (Service-Signature right)',
  breaks: ['events.signature-valid'],
  sign(secret, body) {
    const t = Math.floor(Date.now() / 1000);
    return {
      'service-signature': signatureHeader(secret, body, t),
      'x-service-signature': `t=${t},v1=${createHmac('sha1', secret).update(`${t}.${body}`).digest('hex')}`,
    };
  },
};

/** The checks that need the kit's passport uploaded: inconclusive when the implementation refuses the upload's shape. */
const DOCUMENT_CHECKS = [
  'documents.upload',
  'auth.read-only-cannot-upload',
  'events.document-succeeded',
  'events.document-processed-fields',
  'documents.rejected',
];

/** The implementation run with openapi.yaml's multipart upload (the fixture of the broken variants), breaking `breaks` in another way. */
function refusingUploads(name: string, change: string, breaks: string[], variant: Partial<Variant> = {}): Variant {
  return {
    name: `gateway-uploads-refused${name}`,
    change: `refuses the kit's multipart upload (415)${change}`,
    breaks,
    inconclusive: DOCUMENT_CHECKS,
    ...variant,
    request: queryStringUpload,
  };
}

/** The faithful implementation, given its fixtures, that fails the report of failing_report without sending report.failed. */
const WITHOUT_REPORT_FAILED: Variant = {
  ...GATEWAY,
  name: 'gateway-no-report-failed',
  change: 'never sends report.failed, though a report for an unknown destination ends error (failing_report in its fixtures)',
  breaks: ['events.report-failed'],
  only: ['events.*'],
  event: (event) => (event.body.type === 'report.failed' ? 'drop' : undefined),
};

const FREE_PLAN_PER_MINUTE = 10;
const WINDOW_MS = 60_000;

/**
 * The faithful implementation on the Free plan (part 8: 10 requests a minute, counted per key on
 * a clock the kit shares, see steppingClock), whose 429 leaves X-RateLimit-Remaining off (empty: the
 * proxy gives its own answers one otherwise; the kit takes an empty header for none). Not under
 * --fast the kit provokes a 429 and must fail limits.remaining-header-429; under --fast it provokes
 * none, and must name the check skipped rather than let the rule pass.
 */
function freePlanWithout429Remaining(fast: boolean): Variant {
  const clock = steppingClock(Date.now());
  const windows = new Map<string, { startedAt: number; used: number }>();
  const remainingOf = new WeakMap<ProxiedRequest, number>();
  return {
    ...GATEWAY,
    name: `gateway-free-plan-429-without-remaining${fast ? '-fast' : ''}`,
    change: `the Free plan (10 requests a minute), its 429 without X-RateLimit-Remaining${fast ? ', the kit run with --fast' : ''}`,
    breaks: fast ? [] : ['limits.remaining-header-429'],
    only: ['limits.*'],
    slow: !fast,
    provoke429: !fast,
    clock,
    ...(fast && { skipReasons: { 'limits.remaining-header-429': /^--fast skips it: / } }),
    request(request, state) {
      const now = clock.now();
      const key = request.headers.authorization ?? '';
      let window = windows.get(key);
      if (!window || now - window.startedAt >= WINDOW_MS) windows.set(key, (window = { startedAt: now, used: 0 }));
      if (window.used >= FREE_PLAN_PER_MINUTE) {
        const retryAfter = Math.max(1, Math.ceil((window.startedAt + WINDOW_MS - now) / 1000));
        const refusal = gatewayError(429, 'rate_limited', `${FREE_PLAN_PER_MINUTE} requests a minute on the Free plan`);
        const headers: Record<string, string> = { 'retry-after': String(retryAfter), 'x-ratelimit-remaining': '' };
        return { ...refusal, headers };
      }
      window.used++;
      remainingOf.set(request, FREE_PLAN_PER_MINUTE - window.used);
      const answered = GATEWAY.request!(request, state);
      if (!answered) return undefined;
      return { ...answered, headers: { ...answered.headers, 'x-ratelimit-remaining': String(FREE_PLAN_PER_MINUTE - window.used) } };
    },
    response(response, request, state) {
      GATEWAY.response!(response, request, state);
      const remaining = remainingOf.get(request);
      if (remaining !== undefined) response.headers['x-ratelimit-remaining'] = String(remaining);
    },
  };
}

export const GATEWAY_MUTANTS: Variant[] = [
  WITHOUT_REPORT_FAILED,
  freePlanWithout429Remaining(false),
  freePlanWithout429Remaining(true),
  refusingUploads('', '', []),
  refusingUploads('-weight-over-one', '; a criterion weight of 1.25', ['reports.criteria-weights'], {
    response: (response) =>
      reports(response, (report) => {
        const [first] = (report.criteria as Json[] | null) ?? [];
        if (first) first.weight = 1.25;
      }),
  }),
  refusingUploads('-completed-at-offset', '; report.completed with completed_at in local time', ['events.report-completed-fields'], {
    event: (event) => void (event.body.type === 'report.completed' && (data(event).completed_at = '2026-01-05T11:30:00+02:00')),
  }),
  refusingUploads('-no-report-created', '; never sends report.created', ['events.report-created'], {
    event: (event) => (event.body.type === 'report.created' ? 'drop' : undefined),
  }),
];
