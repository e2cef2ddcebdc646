/**
 * Implementations whose faults show only on inputs or sequences nobody wrote down: the sandbox behind
 * the accuracy test's proxy, each breaking a stated rule where no hand-made probe of the kit looks.
 * Each must fail the generated checks named, the failure naming its seed and its smallest case.
 */
import { isCountryCode } from '../../src/sandbox/countries.js';
import { keyRole, type ProxiedRequest, type Variant } from '../helpers/mutating-implementation.js';
import { type Json, jsonObjectOf, reports } from './variants.js';

const REPORT_PATH = /^\/v1\/reports\/([^/?]+)$/;

/** What a failure of a generated check says after its findings: the seed that replays it, then its smallest case as curl commands. */
const replayable = (smallest: string) => new RegExp(`; seed (\\d+) \\(--seed \\1 replays it\\); the smallest case: ${smallest}`);

const SERVER_ERROR_ON_UNKNOWN_DESTINATION: Variant = {
  name: 'server-error-on-unknown-destination',
  change:
    'answers 500 to a report whose destination, two uppercase letters, is no country of its table (AA, QZ…), where the sandbox takes it and fails the report later',
  breaks: ['generated.inputs-valid', 'generated.no-server-error'],
  reasons: {
    'generated.inputs-valid': replayable(
      `curl -X POST "\\$SVC_BASE_URL/v1/reports" -H "Authorization: Bearer \\$SVC_API_KEY" -H 'content-type: application/json' --data-raw '\\{.*"destination":"[A-Z]{2}".*\\}' # answered 500`,
    ),
    'generated.no-server-error': /^expected an answer that is no 5xx|^expected no 5xx to a request of generated\.inputs-valid; got 500/,
  },
  request(request) {
    if (request.method !== 'POST' || request.path !== '/v1/reports') return undefined;
    const destination = jsonObjectOf(request).body?.destination;
    if (typeof destination !== 'string' || !/^[A-Z]{2}$/.test(destination) || isCountryCode(destination)) return undefined;
    return { status: 500, json: { error: { code: 'internal_error', message: `no risk table for ${destination}` } } };
  },
};

/** The destination each report of three letters or more was asked for, by its id. */
const longDestinations = new Map<string, string>();
const askedFor = new WeakMap<ProxiedRequest, string>();

const DESTINATION_PAST_ITS_BOUND: Variant = {
  name: 'destination-past-its-bound',
  change: 'takes a destination of three uppercase letters or more too (as an ISO alpha-3 code), and shows it as it was sent',
  breaks: ['generated.inputs-invalid'],
  reasons: {
    'generated.inputs-invalid': replayable(`curl -X POST "\\$SVC_BASE_URL/v1/reports" .* --data-raw '\\{.*"destination":"AAA".*\\}' # answered 201: rep_\\w+`),
  },
  request(request) {
    if (request.method !== 'POST' || request.path !== '/v1/reports') return undefined;
    const { body } = jsonObjectOf(request);
    if (typeof body?.destination !== 'string' || !/^[A-Z]{3,}$/.test(body.destination)) return undefined;
    askedFor.set(request, body.destination);
    request.body = Buffer.from(JSON.stringify({ ...body, destination: body.destination.slice(0, 2) }));
    return undefined;
  },
  response(response, request) {
    const asked = askedFor.get(request);
    reports(response, (report) => {
      if (asked) longDestinations.set(String(report.id), asked);
      const long = longDestinations.get(String(report.id));
      if (long) report.destination = long;
    });
  },
};

const IP_LOCK_NOT_ON_DELETES: Variant = {
  name: 'ip-lock-not-on-deletes',
  change: 'serves the IP-locked key on DELETE /v1/reports/:id as the test key (its lock holds on every other operation)',
  breaks: ['generated.credentials'],
  reasons: {
    'generated.credentials': new RegExp(
      `^expected 403 with the code ip_not_allowed to the IP-locked key; got 200 .*${replayable(`1\\) curl -X DELETE "\\$SVC_BASE_URL/v1/reports/rep_\\w+" -H "Authorization: Bearer \\$SVC_IP_LOCKED_KEY" # answered 200 2\\) curl -X GET "\\$SVC_BASE_URL/v1/reports/rep_\\w+" -H "Authorization: Bearer \\$SVC_API_KEY" # answered 404$`).source}`,
    ),
  },
  request(request, state) {
    if (request.method === 'DELETE' && REPORT_PATH.test(request.path) && keyRole(state, request.headers) === 'ip_locked')
      request.headers.authorization = `Bearer ${state.keys.test}`;
    return undefined;
  },
};

/** Each report as last answered, and the deleted reports an upload brought back. */
const seenReports = new Map<string, Json>();
const deletedReports = new Set<string>();
const restored = new Set<string>();

/** The applicant of a multipart upload (the accuracy test's broken variants upload in openapi.yaml's encoding). */
function uploadedFor(request: ProxiedRequest): string | undefined {
  return /name="applicant_id"\r\n\r\n([^\r]+)\r\n/.exec(request.body.toString('latin1'))?.[1];
}

/** The reports of an applicant the proxy has seen, when every one of them was deleted. */
function allDeleted(applicant: string): string[] {
  const ids = [...seenReports].filter(([, report]) => report.applicant_id === applicant).map(([id]) => id);
  return ids.length > 0 && ids.every((id) => deletedReports.has(id)) ? ids : [];
}

const DELETION_UNDONE_BY_UPLOAD: Variant = {
  name: 'deletion-undone-by-upload',
  change:
    'a document uploaded for an applicant whose every report was deleted brings those reports back, in their reads and in the list (re-analysing an applicant rebuilds its reports)',
  breaks: ['generated.sequences'],
  reasons: {
    // The shortest sequence shrinking reached within its budget: its applicant and report, then the deletion, an upload and the read that shows the report back.
    'generated.sequences': replayable(
      [
        `1\\) curl -X POST "\\$SVC_BASE_URL/v1/applicants" .* # answered 201: app_\\w+`,
        `2\\) curl -X POST "\\$SVC_BASE_URL/v1/reports" .* # answered 201: REPORT_1 \\(rep_\\w+\\)`,
        `.*\\d\\) curl -X DELETE "\\$SVC_BASE_URL/v1/reports/\\$(REPORT_\\d)" .* # answered 200`,
        `.*\\d\\) curl -X POST "\\$SVC_BASE_URL/v1/documents" .* # answered 201`,
        `.*\\d\\) curl -X GET "\\$SVC_BASE_URL/v1/reports/\\$\\2" -H "Authorization: Bearer \\$SVC_API_KEY" # answered 200`,
      ].join(' '),
    ),
  },
  request(request, state) {
    const id = REPORT_PATH.exec(request.path)?.[1];
    if (!id || !restored.has(id) || keyRole(state, request.headers) !== 'test') return undefined;
    if (request.method === 'GET') return { status: 200, json: seenReports.get(id) };
    if (request.method !== 'DELETE') return undefined;
    restored.delete(id);
    return { status: 200, json: { id, object: 'report', deleted: true } };
  },
  response(response, request, state) {
    reports(response, (report) => void seenReports.set(String(report.id), structuredClone(report)));
    const id = REPORT_PATH.exec(request.path)?.[1];
    if (id && request.method === 'DELETE' && response.status < 300) deletedReports.add(id);
    const uploaded = request.method === 'POST' && request.path.startsWith('/v1/documents') && response.status < 300 ? uploadedFor(request) : undefined;
    for (const deleted of uploaded ? allDeleted(uploaded) : []) restored.add(deleted);
    const list = response.json as Json | undefined;
    if (request.method === 'GET' && /^\/v1\/reports(\?|$)/.test(request.path) && keyRole(state, request.headers) === 'test' && Array.isArray(list?.data))
      list.data = [...[...restored].map((item) => seenReports.get(item)).filter(Boolean), ...list.data];
  },
};

export const GENERATED_FAULTS: Variant[] = [SERVER_ERROR_ON_UNKNOWN_DESTINATION, DESTINATION_PAST_ITS_BOUND, IP_LOCK_NOT_ON_DELETES, DELETION_UNDONE_BY_UPLOAD];
