/**
 * An implementation that chose as issue 35 found one behind a gateway: it takes a document as the
 * raw file, its kind and applicant in the query string (`POST /v1/documents?type=passport&applicant_id=app_…`),
 * and refuses a form or JSON with 415, and it signs both Service-Signature and X-Service-Signature.
 * Given a fixture that says so, the kit must pass it. Its upload mutants run with the kit's own
 * multipart upload, which it refuses: only the checks that need a document are then inconclusive,
 * and a stated rule broken elsewhere still fails. Its signature mutant keeps its fixture.
 */
import { createHmac } from 'node:crypto';
import { signatureHeader } from '../../src/webhooks/signature.js';
import type { ProxiedRequest, Variant } from '../helpers/mutating-implementation.js';
import { asSandboxUpload } from './different-choices.js';
import { data, type Json, reports } from './variants.js';

/** Turns a query-string upload into the sandbox's form; refuses a form or JSON as the implementation does. */
function queryStringUpload(request: ProxiedRequest): { status: number; json: unknown } | undefined {
  const upload = /^\/v1\/documents(\?.*)?$/.exec(request.path);
  if (request.method !== 'POST' || !upload) return undefined;
  if (/^(multipart\/|application\/json)/.test(request.headers['content-type'] ?? ''))
    return {
      status: 415,
      json: { error: { code: 'unsupported_media_type', message: 'send the file as the body, its type and applicant_id in the query string' } },
    };
  const query = new URLSearchParams(upload[1] ?? '');
  request.path = '/v1/documents';
  asSandboxUpload(request, { type: query.get('type') ?? '', applicant_id: query.get('applicant_id') ?? '' }, { name: 'upload', bytes: request.body });
  return undefined;
}

/** Both names part 6 gives, each signed as openapi.yaml signs (HMAC-SHA256 over `<t>.<body>`, hex). */
function bothSignatureHeaders(secret: string, body: string): Record<string, string> {
  const header = signatureHeader(secret, body);
  return { 'service-signature': header, 'x-service-signature': header };
}

export const GATEWAY: Variant = {
  name: 'gateway',
  change:
    'the raw file as the upload body, its type and applicant_id in the query string; a form or JSON refused with 415; Service-Signature and X-Service-Signature both sent',
  breaks: [],
  // --fast: the specification's delays, and a provoked 429's window, are not waited out.
  skips: ['events.redelivery', 'events.redelivery-4xx', 'events.redelivery-timeout', 'limits.remaining-header-429'],
  fixtures: 'document:\n  encoding: raw\n  query: { type: passport, applicant_id: "{{applicant_id}}" }\n',
  notes: { 'events.signature-valid': /^\d+ deliveries signed with HMAC-SHA256 over <t>\.<raw body>, in hex, in Service-Signature and X-Service-Signature$/ },
  request: queryStringUpload,
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

export const GATEWAY_MUTANTS: Variant[] = [
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
