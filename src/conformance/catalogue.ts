/**
 * The checks of `svc contract verify`. Ids are stable: CI systems key test history on them.
 *
 * Level `spec` checks only what the specification states, and accepts every choice it leaves
 * "not shown"; level `strict` adds the assumptions of openapi.yaml (`x-spec: assumed`).
 * `verifiedBy` says whether a Pact interaction of `contracts/` or a probe decides the check.
 */

export type Level = 'spec' | 'strict';
type VerifiedBy = 'pact' | 'probe';

/** What a check needs beyond the base URL and the test key; without it the check is skipped. */
export type Input =
  | 'adminKey'
  | 'readOnlyKey'
  | 'ipLockedKey'
  | 'otherWorkspaceKey'
  | 'otherWorkspaceAdminKey'
  | 'revocableKey'
  | 'documentFixture'
  | 'webhookPort'
  | 'webhookSecret'
  | 'slow'
  | 'provoke429';

/** A check of `svc contract verify`. */
interface CatalogueEntry<Id extends string> {
  id: Id;
  title: string;
  /** Part of the specification the checked rule comes from. */
  spec: string;
  level: Level;
  verifiedBy: VerifiedBy;
  needs: Input[];
}

export const INPUT_FLAGS: Record<Input, string> = {
  adminKey: "--admin-key (or SVC_ADMIN_KEY, or the profile's admin_key)",
  readOnlyKey: "--read-only-key (or SVC_READ_ONLY_KEY, or the profile's read_only_key)",
  ipLockedKey: "--ip-locked-key (or SVC_IP_LOCKED_KEY, or the profile's ip_locked_key)",
  otherWorkspaceKey: "--other-workspace-key (or SVC_OTHER_WORKSPACE_KEY, or the profile's other_workspace_key)",
  otherWorkspaceAdminKey: "--other-workspace-admin-key (or SVC_OTHER_WORKSPACE_ADMIN_KEY, or the profile's other_workspace_admin_key)",
  revocableKey:
    'a key the kit may revoke: --revocable-key-id with --revocable-key (or SVC_REVOCABLE_KEY), made in the dashboard; or --admin-key where the implementation makes keys through POST /v1/keys',
  documentFixture:
    '--fixtures with a "document" entry: the upload\'s encoding and answer are not shown by the specification (--level strict checks openapi.yaml\'s multipart upload)',
  webhookPort: '--webhook-port, with the implementation delivering its events there',
  webhookSecret: "--webhook-secret (or SVC_WEBHOOK_SECRET, or the profile's webhook_secret)",
  slow: "a run without --fast (it waits out the specification's own delays: the 30 s first retry of part 6, the rate-limit window of a provoked 429)",
  provoke429:
    "--provoke-429, or --rate-limit-key (or SVC_RATE_LIMIT_KEY, or the profile's rate_limit_key) with a key of a workspace no one else uses: the kit spends the key's whole rate-limit window on purpose, and every other client of that workspace is refused until the window ends",
};

const check = <const Id extends string>(
  id: Id,
  spec: string,
  level: Level,
  verifiedBy: VerifiedBy,
  title: string,
  needs: Input[] = [],
): CatalogueEntry<Id> => ({
  id,
  title,
  spec,
  level,
  verifiedBy,
  needs,
});

const ENTRIES = [
  // part 2 and 4: the endpoints and the resources they answer with
  check('applicants.create', '4', 'spec', 'pact', 'POST /v1/applicants answers 2xx with an applicant whose id has the prefix app_'),
  check(
    'reports.create',
    '4',
    'spec',
    'pact',
    'POST /v1/reports answers 2xx with a report: rep_ and app_ ids, destination of two uppercase letters, snake_case visa_type, purpose, status, UTC created_at',
  ),
  check(
    'reports.get',
    '4',
    'spec',
    'pact',
    'GET /v1/reports/:id answers 2xx with the completed report: integer risk_score, snake_case score_band, criteria {key, score, weight}, recommendations as strings',
  ),
  check('reports.criteria-weights', '2', 'spec', 'probe', 'every criterion weight is a fraction of 1 (0 to 1)'),
  check(
    'reports.list',
    '4',
    'spec',
    'probe',
    "GET /v1/reports answers 2xx with the workspace's reports: the kit's report in an array of the answer, on its first page or a later one",
  ),
  check('reports.delete', '4', 'spec', 'probe', 'DELETE /v1/reports/:id answers 2xx'),
  check(
    'reports.delete-permanent',
    '4',
    'spec',
    'probe',
    'a deleted report stays deleted: not found by id and absent from the list, then and later in the run',
  ),
  check(
    'documents.upload',
    '4',
    'spec',
    'pact',
    'POST /v1/documents, in the encoding of the fixtures, answers 2xx with a document: doc_ id, type, status, red_flags array',
    ['documentFixture'],
  ),
  check('keys.revoke', '5', 'spec', 'pact', 'DELETE /v1/keys/:id with the admin key answers 2xx', ['adminKey', 'revocableKey']),
  check('keys.id-prefix', '2', 'spec', 'probe', 'the key the kit revokes has an id with the prefix key_', ['revocableKey']),
  check('reports.completes', '3', 'spec', 'probe', 'a new report finishes with status completed'),
  check(
    'determinism.test-key',
    '5',
    'spec',
    'probe',
    'two reports of the same input made with a svc_test_ key have the same score, band, criteria and recommendations',
  ),

  // part 5 and 7: authentication
  check(
    'transport.https-only',
    '5',
    'spec',
    'probe',
    'a plain HTTP request is rejected (it carries a random key, never a real one, and must not have it looked up)',
  ),
  check('auth.missing-header', '7', 'spec', 'probe', 'a request without Authorization gets 401 with the code unauthorized'),
  check(
    'auth.malformed-header',
    '7',
    'spec',
    'probe',
    'a request whose Authorization is not "Bearer <key>" (Basic, the key alone, Bearer without a key, Bearer with two keys) gets 401 with the code unauthorized',
  ),
  check('auth.unknown-key', '7', 'spec', 'probe', 'a key that does not exist gets 401 with the code invalid_key'),
  check('auth.read-only-can-read', '4', 'spec', 'probe', 'a read-only key reads a report and the list', ['readOnlyKey']),
  check('auth.read-only-cannot-write', '4', 'spec', 'probe', 'a read-only key that writes gets 403 with the code forbidden, and nothing changes', [
    'readOnlyKey',
  ]),
  check('auth.read-only-cannot-upload', '4', 'spec', 'probe', 'a read-only key that uploads a document (POST /v1/documents) gets 403 with the code forbidden', [
    'readOnlyKey',
  ]),
  check(
    'auth.ip-not-allowed',
    '7',
    'spec',
    'probe',
    'a key locked to other IP addresses gets 403 with the code ip_not_allowed: on the list, on a report by id and on a write',
    ['ipLockedKey'],
  ),
  check('auth.revocation-needs-admin', '4', 'spec', 'probe', 'revoking a key with a key that is not the admin key is refused, and the key keeps working', [
    'revocableKey',
  ]),
  check('auth.revocation-immediate', '5', 'spec', 'probe', 'a key revoked with the admin key gets 401 with the code invalid_key on its next request', [
    'adminKey',
    'revocableKey',
  ]),
  check('auth.workspace-isolation', '5', 'spec', 'probe', "another workspace's key can neither read, list nor delete the kit's report", ['otherWorkspaceKey']),
  check('auth.workspace-applicant', '5', 'spec', 'probe', "a report for another workspace's applicant is refused (or fails), never analysed", [
    'otherWorkspaceKey',
  ]),
  check('auth.workspace-admin', '5', 'spec', 'probe', "another workspace's admin key cannot revoke this workspace's key: refused, and the key keeps working", [
    'otherWorkspaceAdminKey',
    'revocableKey',
  ]),

  // part 8
  check('limits.remaining-header', '8', 'spec', 'probe', 'every successful response carries X-RateLimit-Remaining'),
  check(
    'limits.remaining-header-errors',
    '8',
    'spec',
    'probe',
    'every error response carries X-RateLimit-Remaining, the ones the kit provokes included: an unknown report, an unknown path, a method not allowed, plain HTTP',
  ),
  check(
    'limits.remaining-header-429',
    '8',
    'spec',
    'probe',
    'a 429 carries X-RateLimit-Remaining: one the kit provokes, when asked, with the test key or the rate-limit key, then waits out its window',
    ['slow', 'provoke429'],
  ),

  // part 3 and 6: events
  check('events.report-created', '6', 'spec', 'pact', 'creating a report sends report.created (evt_ id, type, data object)', ['webhookPort']),
  check(
    'events.report-completed',
    '6',
    'spec',
    'pact',
    'a completed report sends report.completed (evt_ id, type, UTC created_at, data with an integer risk_score)',
    ['webhookPort'],
  ),
  check(
    'events.report-completed-fields',
    '6',
    'spec',
    'probe',
    'report.completed data is {id, risk_score, risk_band} (completed_at, when it appears, a UTC timestamp) or the shorter {report_id, risk_score}, naming the report',
    ['webhookPort'],
  ),
  check(
    'events.report-failed',
    '6',
    'spec',
    'probe',
    'a report that ends in a failed outcome sends report.failed naming it (the kit provokes one: the failing_report of --fixtures, else a report for an applicant whose only document was rejected)',
    ['webhookPort'],
  ),
  check(
    'events.report-failed-fields',
    '6',
    'spec',
    'probe',
    'every report.failed received (the kit provokes one: the failing_report of --fixtures, else a report for an applicant whose only document was rejected) has data.id and data.error with a code and a message',
    ['webhookPort'],
  ),
  check('events.document-succeeded', '6', 'spec', 'pact', 'an analysed document sends document.processed or document.parsed', ['webhookPort']),
  check('events.document-processed-fields', '6', 'spec', 'probe', 'document.processed data has the document id, type, status analysed and red_flags', [
    'webhookPort',
  ]),
  check(
    'documents.rejected',
    '3',
    'spec',
    'probe',
    'a file that fails the format and safety checks is refused, or discarded with a document.rejected naming it, never analysed',
    ['webhookPort'],
  ),
  check('events.envelope', '6', 'spec', 'probe', 'every delivery is a POST of a JSON object with an evt_ id, a type and a data object', ['webhookPort']),
  check('events.unique-ids', '6', 'spec', 'probe', 'event ids are unique per event: deliveries that share an id carry the same type and data', ['webhookPort']),
  check('events.service-event-header', '6', 'spec', 'probe', "every delivery's Service-Event header equals the body's type", ['webhookPort']),
  check(
    'events.signature-form',
    '6',
    'spec',
    'probe',
    'every delivery carries Service-Signature or X-Service-Signature, each of them of the form t=<unix time>,v1=<signature>',
    ['webhookPort'],
  ),
  check(
    'events.signature-valid',
    '6',
    'spec',
    'probe',
    'every v1 of every signature header a delivery carries is HMAC-SHA256 with the webhook secret, over <t>.<raw body> or the raw body alone, in hex or base64',
    ['webhookPort', 'webhookSecret'],
  ),
  check('events.redelivery', '6', 'spec', 'probe', 'an event answered 503 is delivered again with the same id, 24 to 45 s later (part 6: 30 s)', [
    'webhookPort',
    'slow',
  ]),
  check('events.redelivery-4xx', '6', 'spec', 'probe', 'an event answered 400 is delivered again with the same id, 24 to 45 s later', ['webhookPort', 'slow']),
  check('events.redelivery-timeout', '6', 'spec', 'probe', 'an event whose answer the kit holds past the 10 s of part 6 is delivered again with the same id', [
    'webhookPort',
    'slow',
  ]),

  // generated: inputs, credentials and sequences the kit makes from the stated rules (fast-check), from one seed (--seed replays them)
  check(
    'generated.inputs-valid',
    '4',
    'spec',
    'probe',
    'generated valid reports (other destinations of two uppercase letters; the same body as other JSON text) are accepted, or refused with a 4xx where the destination is not one it serves; an accepted one is a report of its input: rep_ id, its applicant_id and destination, UTC created_at, readable by id',
  ),
  check(
    'generated.inputs-invalid',
    '4',
    'spec',
    'probe',
    'a generated report input that breaks a stated rule (a destination that is not two uppercase letters, an applicant_id without app_, a visa_type that is not snake_case, a field that is not a string, a body that is not a JSON object) is refused with a 4xx and creates nothing in the list',
  ),
  check(
    'generated.no-server-error',
    '7',
    'spec',
    'probe',
    'no generated request, valid or not, gets a 5xx (a 502, 503 or 504 with Retry-After is waited out as transient)',
  ),
  check(
    'generated.credentials',
    '5',
    'spec',
    'probe',
    "every operation with every credential the kit holds gets its stated outcome: no key and malformed headers (generated) 401 unauthorized, unknown (generated) and revoked keys 401 invalid_key, read-only 403 forbidden on writes, IP-locked 403 ip_not_allowed, another workspace's key no access to the kit's report, no revocation without the admin key",
  ),
  check(
    'generated.sequences',
    '4',
    'spec',
    'probe',
    'generated sequences of creations, reads, lists, deletions, uploads and key revocations keep to a model of the stated rules: deletion permanent in every read and list, workspace isolation, one report.created per report with unique ids, X-RateLimit-Remaining on every answer; a failure is shrunk to its shortest sequence',
  ),

  // strict: the assumptions of openapi.yaml
  check('strict.success-status', '4', 'strict', 'probe', 'every success has the status openapi.yaml gives its operation (201 for creations, 200 otherwise)'),
  check(
    'strict.report-resource',
    '2',
    'strict',
    'probe',
    "every report answered matches openapi.yaml's Report (all fields present, null until completed, weights summing to 1)",
  ),
  check('strict.applicant-resource', '2', 'strict', 'probe', "every applicant answered matches openapi.yaml's Applicant"),
  check('strict.document-resource', '2', 'strict', 'probe', "every document answered matches openapi.yaml's Document"),
  check('strict.key-resources', '5', 'strict', 'probe', "key creation and revocation answers match openapi.yaml's KeyWithSecret and KeyRevocation", [
    'adminKey',
  ]),
  check('strict.revocation-forbidden', '7', 'strict', 'probe', 'a revocation with a key that is not the admin key gets 403 with the code forbidden', [
    'revocableKey',
  ]),
  check('strict.error-bodies', '7', 'strict', 'probe', 'every error answer is {"error": {"code", "message"}} with a code openapi.yaml gives its status'),
  check('strict.ratelimit-value', '8', 'strict', 'probe', 'X-RateLimit-Remaining is an integer of 0 or more'),
  check(
    'strict.plain-http-answer',
    '5',
    'strict',
    'probe',
    'plain HTTP on the HTTPS port is answered 400 {"error": {"code": "https_required"}} (x-plain-http)',
  ),
  check(
    'strict.validation-errors',
    '7',
    'strict',
    'probe',
    'a body that is not JSON gets 400 invalid_json; an invalid field gets 422 invalid_request naming it in param',
  ),
  check('strict.reports-list-page', '4', 'strict', 'pact', 'GET /v1/reports answers 200 {object: list, data, has_more}, as svc reports list reads it'),
  check('strict.reports-delete-result', '4', 'strict', 'pact', 'DELETE /v1/reports/:id answers 200 {id, object, deleted: true}'),
  check('strict.not-found', '4', 'strict', 'pact', 'a deleted report is 404 with the error code not_found'),
  check('strict.invalid-key-body', '7', 'strict', 'pact', 'an unknown key gets 401 {"error": {"code": "invalid_key", "message"}}'),
  check('strict.applicants-update', '4', 'strict', 'pact', 'POST /v1/applicants with the id of an applicant updates it and answers 200'),
  check('strict.applicants-get', '4', 'strict', 'pact', 'GET /v1/applicants/:id answers 200 with the applicant'),
  check('strict.documents-get', '4', 'strict', 'pact', 'GET /v1/documents/:id answers 200 with the document'),
  check('strict.event-schemas', '6', 'strict', 'probe', "every event matches openapi.yaml's schema for its type (report.created carries the queued report)", [
    'webhookPort',
  ]),
  check('strict.signature-header', '6', 'strict', 'probe', 'every delivery carries Service-Signature: t=<digits>,v1=<64 lower-case hex digits>', [
    'webhookPort',
  ]),
  check(
    'strict.signature-valid',
    '6',
    'strict',
    'probe',
    "every delivery's v1 is HMAC-SHA256 with the webhook secret over <t>.<raw body>, in hex, within 300 s",
    ['webhookPort', 'webhookSecret'],
  ),
];

/** The id of a check of the catalogue: a name that is not one does not compile. */
export type CheckId = (typeof ENTRIES)[number]['id'];

export type Check = CatalogueEntry<CheckId>;

export const CATALOGUE: readonly Check[] = ENTRIES;

export const CHECKS_BY_ID: ReadonlyMap<string, Check> = new Map(CATALOGUE.map((entry) => [entry.id, entry]));

export const PART_TITLES: Record<string, string> = {
  '1': 'What the service does',
  '2': 'Resources and their fields',
  '3': 'States and transitions',
  '4': 'Endpoints',
  '5': 'Authentication',
  '6': 'Events',
  '7': 'Errors',
  '8': 'Limits',
  '9': 'Versioning',
};

export interface Clause {
  /** Part and a short name, e.g. `5.2`. */
  id: string;
  text: string;
  /** Checks that verify it; none when it cannot be checked through the API (the dashboard, 24 h schedules). */
  checks: CheckId[];
  /** Why a clause has no check. */
  unchecked?: string;
}

/** Every rule the specification states, part by part, with the checks that cover it: the coverage by clause of a run. */
export const CLAUSES: readonly Clause[] = [
  { id: '1.1', text: 'A REST API over JSON', checks: ['applicants.create', 'reports.create', 'reports.get', 'generated.inputs-valid'] },
  { id: '1.2', text: 'A report carries a numeric risk score, a score band, weighted criteria and recommendations', checks: ['reports.get'] },
  {
    id: '1.3',
    text: 'Report generation is asynchronous; completion is announced by signed webhook events',
    checks: ['reports.completes', 'events.report-completed', 'events.signature-form'],
  },
  {
    id: '1.4',
    text: 'Requests are authenticated with a bearer key scoped to one workspace',
    checks: ['auth.unknown-key', 'auth.workspace-isolation', 'auth.workspace-applicant', 'generated.credentials'],
  },
  { id: '1.5', text: 'Keys are managed by an admin key', checks: ['auth.revocation-needs-admin', 'keys.revoke'] },
  { id: '2.1', text: 'Report id has the prefix rep_', checks: ['reports.create', 'reports.get', 'generated.inputs-valid'] },
  {
    id: '2.2',
    text: 'applicant_id and applicant ids have the prefix app_',
    checks: ['reports.create', 'applicants.create', 'generated.inputs-valid', 'generated.inputs-invalid'],
  },
  { id: '2.3', text: 'destination is two uppercase letters', checks: ['reports.create', 'generated.inputs-valid', 'generated.inputs-invalid'] },
  { id: '2.4', text: 'visa_type is snake_case; purpose and status are strings', checks: ['reports.create', 'generated.inputs-invalid'] },
  { id: '2.5', text: 'risk_score is an integer; score_band is snake_case', checks: ['reports.get'] },
  { id: '2.6', text: 'criteria are objects with key, score and weight; weight is a fraction of 1', checks: ['reports.get', 'reports.criteria-weights'] },
  { id: '2.7', text: 'recommendations are strings', checks: ['reports.get'] },
  { id: '2.8', text: 'created_at is an ISO 8601 UTC timestamp', checks: ['reports.create', 'reports.get', 'generated.inputs-valid'] },
  {
    id: '2.9',
    text: 'In webhook payloads the band is risk_band, and completed_at (which may appear) is a UTC timestamp',
    checks: ['events.report-completed-fields'],
  },
  { id: '2.10', text: 'A document has a doc_ id, a type, a status and a red_flags array', checks: ['documents.upload'] },
  { id: '2.11', text: 'Key ids have the prefix key_', checks: ['keys.id-prefix'] },
  { id: '2.12', text: 'Event ids have the prefix evt_', checks: ['events.envelope'] },
  { id: '3.1', text: 'A queued report finishes as completed and report.completed is sent', checks: ['reports.completes', 'events.report-completed'] },
  {
    id: '3.2',
    text: 'A report that cannot finish fails and report.failed is sent with an error code and message',
    checks: ['events.report-failed', 'events.report-failed-fields'],
  },
  {
    id: '3.3',
    text: 'A document that passes OCR and validation is analysed; document.processed (or document.parsed) is sent',
    checks: ['events.document-succeeded', 'events.document-processed-fields'],
  },
  { id: '3.4', text: 'A document that fails the safety or format check is discarded; document.rejected is sent', checks: ['documents.rejected'] },
  { id: '4.1', text: 'POST /v1/reports creates a report', checks: ['reports.create', 'generated.inputs-valid'] },
  { id: '4.2', text: 'GET /v1/reports/:id retrieves a report with its full risk breakdown', checks: ['reports.get', 'generated.sequences'] },
  { id: '4.3', text: 'GET /v1/reports lists the reports of the workspace', checks: ['reports.list', 'generated.sequences'] },
  { id: '4.4', text: 'POST /v1/applicants creates or updates an applicant', checks: ['applicants.create'] },
  { id: '4.5', text: 'POST /v1/documents uploads a document', checks: ['documents.upload', 'auth.read-only-cannot-upload'] },
  { id: '4.6', text: 'DELETE /v1/reports/:id deletes a report', checks: ['reports.delete', 'generated.sequences'] },
  {
    id: '4.7',
    text: 'DELETE /v1/keys/:id revokes a key and requires an admin key',
    checks: ['keys.revoke', 'auth.revocation-needs-admin', 'auth.workspace-admin', 'generated.credentials'],
  },
  { id: '4.8', text: 'Rule 1: creating a report emits report.created', checks: ['events.report-created', 'generated.sequences'] },
  { id: '4.9', text: 'Rule 2: deletion is permanent', checks: ['reports.delete-permanent', 'generated.sequences'] },
  {
    id: '4.10',
    text: 'Rule 3: read-only keys read; writes need a key without the read-only limit',
    checks: ['auth.read-only-can-read', 'auth.read-only-cannot-write', 'auth.read-only-cannot-upload', 'generated.credentials'],
  },
  {
    id: '5.1',
    text: 'Every request carries Authorization: Bearer <API_KEY>',
    checks: ['auth.missing-header', 'auth.malformed-header', 'generated.credentials'],
  },
  { id: '5.2', text: 'Plain HTTP requests are rejected', checks: ['transport.https-only', 'strict.plain-http-answer'] },
  {
    id: '5.3a',
    text: 'A key belongs to one workspace',
    checks: ['auth.workspace-isolation', 'auth.workspace-applicant', 'auth.workspace-admin', 'generated.credentials', 'generated.sequences'],
  },
  {
    id: '5.3b',
    text: 'A key can be limited to read-only operations',
    checks: ['auth.read-only-can-read', 'auth.read-only-cannot-write', 'auth.read-only-cannot-upload', 'generated.credentials'],
  },
  { id: '5.3c', text: 'A key can be locked to a list of source IP addresses', checks: ['auth.ip-not-allowed', 'generated.credentials'] },
  {
    id: '5.3d',
    text: 'A key can be revoked at any time with immediate effect',
    checks: ['auth.revocation-immediate', 'generated.credentials', 'generated.sequences'],
  },
  { id: '5.4', text: 'Keys are shown once, at creation, in the dashboard', checks: [], unchecked: 'the dashboard is not specified' },
  { id: '5.5', text: 'svc_test_ keys return deterministic sample reports', checks: ['determinism.test-key'] },
  { id: '5.6', text: 'The dashboard shows the last use per key and an audit log', checks: [], unchecked: 'the dashboard is not specified' },
  {
    id: '5.7',
    text: 'Keys are revoked with DELETE /v1/keys/:id and the admin key',
    checks: ['keys.revoke', 'auth.revocation-immediate', 'strict.revocation-forbidden'],
  },
  { id: '5.9', text: 'Webhook signatures use a separate webhook secret', checks: ['events.signature-valid', 'strict.signature-valid'] },
  { id: '6.1', text: 'Events are delivered by HTTP POST as JSON', checks: ['events.envelope'] },
  {
    id: '6.2',
    text: 'report.created, report.completed, document.processed/parsed and document.rejected fire on their occasions',
    checks: ['events.report-created', 'events.report-completed', 'events.document-succeeded', 'documents.rejected'],
  },
  { id: '6.3', text: 'report.failed fires when a report cannot be completed', checks: ['events.report-failed'] },
  { id: '6.4', text: 'Service-Event carries the event kind', checks: ['events.service-event-header'] },
  { id: '6.5', text: 'Service-Signature (or X-Service-Signature) has the form t=<unix_timestamp>,v1=<signature>', checks: ['events.signature-form'] },
  {
    id: '6.6',
    text: 'The envelope has an evt_ id unique per event, type, created_at (in the completed payload) and a data object',
    checks: ['events.envelope', 'events.unique-ids', 'events.report-completed', 'generated.sequences'],
  },
  {
    id: '6.7',
    text: 'report.completed data: id, risk_score, risk_band, completed_at (or report_id and risk_score)',
    checks: ['events.report-completed-fields'],
  },
  { id: '6.8', text: 'document.processed data: id, type, status, red_flags', checks: ['events.document-processed-fields'] },
  { id: '6.9', text: 'A non-2xx answer is retried; the first retry comes 30 s later', checks: ['events.redelivery', 'events.redelivery-4xx'] },
  { id: '6.10', text: 'The subscriber has 10 s to answer; a timeout is retried', checks: ['events.redelivery-timeout'] },
  {
    id: '6.11',
    text: 'A retried event keeps its id',
    checks: ['events.redelivery', 'events.redelivery-4xx', 'events.redelivery-timeout', 'events.unique-ids'],
  },
  { id: '6.12', text: 'Payloads are signed with the webhook secret using HMAC with SHA-256', checks: ['events.signature-valid', 'strict.signature-valid'] },
  { id: '6.13', text: 'Deliveries come from a fixed pool of egress IP addresses', checks: [], unchecked: 'the pool is not given' },
  {
    id: '6.14',
    text: '7 attempts over 24 h, then dead-letter and manual replay',
    checks: [],
    unchecked: 'the later attempts span 24 hours; dead letters live in the dashboard',
  },
  { id: '6.15', text: 'report.failed data: id, and an error object with code and message', checks: ['events.report-failed-fields'] },
  {
    id: '7.1',
    text: '401 unauthorized: Authorization header missing or malformed',
    checks: ['auth.missing-header', 'auth.malformed-header', 'generated.credentials'],
  },
  { id: '7.2', text: '401 invalid_key: key revoked, expired or unknown', checks: ['auth.unknown-key', 'auth.revocation-immediate', 'generated.credentials'] },
  {
    id: '7.3',
    text: '403 forbidden: the key lacks the required scope',
    checks: ['auth.read-only-cannot-write', 'auth.read-only-cannot-upload', 'strict.revocation-forbidden', 'generated.credentials'],
  },
  { id: '7.4', text: "403 ip_not_allowed: the request comes from an address not on the key's list", checks: ['auth.ip-not-allowed', 'generated.credentials'] },
  {
    id: '7.5',
    text: 'Errors answer invalid input (their status and body are not shown): an input that breaks a stated rule is refused, never a server failure',
    checks: ['generated.inputs-invalid', 'generated.no-server-error'],
  },
  {
    id: '8.1',
    text: 'X-RateLimit-Remaining is returned on every response',
    checks: ['limits.remaining-header', 'limits.remaining-header-errors', 'limits.remaining-header-429', 'generated.sequences'],
  },
  {
    id: '8.2',
    text: 'Free: 10 requests a minute and 100 reports a month; Pro: 120 and 10,000',
    checks: [],
    unchecked: 'the kit cannot know the plan of a key; it paces itself by X-RateLimit-Remaining instead',
  },
  {
    id: '9.1',
    text: 'The version is the path prefix /v1 on every endpoint',
    checks: ['applicants.create', 'reports.create', 'reports.get', 'reports.list', 'reports.delete', 'documents.upload', 'keys.revoke'],
  },
];

export function partOf(clause: Clause): string {
  return clause.id.split('.')[0]!;
}

/** The checks of the catalogue a pattern names: an id, or a prefix ending in `*` (`auth.*`). */
function named(pattern: string): Check[] {
  return pattern.endsWith('*') ? CATALOGUE.filter((entry) => entry.id.startsWith(pattern.slice(0, -1))) : CATALOGUE.filter((entry) => entry.id === pattern);
}

/**
 * The checks of a run: those of the level that `--only` names (all, without it), less those
 * `--exclude` names. Both take ids and prefixes ending in `*` (`auth.*`); a pattern that names no
 * check is reported, so that a typo does not silently select, or keep, what it meant to leave out.
 */
export function selectChecks(
  level: Level,
  only: string[] | undefined,
  exclude: string[] = [],
): { selected: Check[]; unknown: string[]; unknownExcluded: string[] } {
  const atLevel = CATALOGUE.filter((entry) => level === 'strict' || entry.level === 'spec');
  const unknown = (only ?? []).filter((pattern) => named(pattern).length === 0);
  const unknownExcluded = exclude.filter((pattern) => named(pattern).length === 0);
  const wanted = only && only.length > 0 ? new Set(only.flatMap(named).map((entry) => entry.id)) : undefined;
  const unwanted = new Set(exclude.flatMap(named).map((entry) => entry.id));
  return { selected: atLevel.filter((entry) => (!wanted || wanted.has(entry.id)) && !unwanted.has(entry.id)), unknown, unknownExcluded };
}
