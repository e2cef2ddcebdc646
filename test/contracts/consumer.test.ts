/**
 * The consumer side of the Pact contracts in contracts/: svc's own client code (src/services) and
 * the kit's own reading of webhook deliveries, driven against Pact's mock server.
 *
 * Interactions backing a `spec` check use only loose matchers for what the specification states
 * (prefixes, two uppercase letters, integers, snake_case, UTC timestamps, any 2xx); those backing a
 * `strict` check also pin the assumptions of openapi.yaml that svc's client relies on.
 *
 * `npm run contracts` writes them to contracts/; the normal test run makes them afresh in a
 * temporary directory and fails if contracts/ differs.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HTTPResponseStatusClass, MatchersV3 as M, PactV4 } from '@pact-foundation/pact';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { CHECKS_BY_ID } from '../../src/conformance/catalogue.js';
import { checkOfInteraction, CONTRACT_KEYS, PACT_CONSUMER, PACT_PROVIDER, STATES } from '../../src/conformance/contract-terms.js';
import { eventOf, type Delivery } from '../../src/conformance/receiver.js';
import { SAMPLE_APPLICANT, samplePassportPdf, sampleReportRequest } from '../../src/conformance/samples.js';
import { ApiError } from '../../src/core/errors.js';
import { getApplicant, upsertApplicant } from '../../src/services/applicants.js';
import { getDocument, uploadDocument } from '../../src/services/documents.js';
import { createReport, deleteReport, getReport, listReports } from '../../src/services/reports.js';
import { networkOf } from '../../src/api/network.js';

const CONTRACTS = fileURLToPath(new URL('../../contracts/', import.meta.url));
const WRITE = process.env.SVC_WRITE_CONTRACTS === '1';
const dir = WRITE ? CONTRACTS : mkdtempSync(join(tmpdir(), 'svc-contracts-'));
// A fresh file each time: Pact merges into an existing one, which would keep interactions that are gone.
if (WRITE) for (const name of readdirSync(CONTRACTS)) if (name.endsWith('.json')) rmSync(join(CONTRACTS, name));

const pact = new PactV4({ consumer: PACT_CONSUMER, provider: PACT_PROVIDER, dir, logLevel: 'error' });

// ---------------------------------------------------------------- matchers of stated facts
const UTC = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]00:?00)$';
const SNAKE = '^[a-z][a-z0-9]*(_[a-z0-9]+)*$';
const id = (prefix: string, example: string) => M.regex(`^${prefix}_.+$`, example);
const auth = (key: string) => ({ Authorization: M.regex('^Bearer \\S+$', `Bearer ${key}`) });
const json = { 'Content-Type': M.regex('^application/json(;.*)?$', 'application/json') };
// Part 4: "responses are JSON". Any JSON media type (application/json, or a +json one as RFC 6839
// defines them: problem+json, vnd.api+json), with any parameters, for the interactions of level spec.
const jsonAnswer = { 'Content-Type': M.regex('^application/(json|[!#$&^_.+\\w-]+\\+json)\\s*(;.*)?$', 'application/json') };
const SUCCESS = (example: number) => M.matchStatus(example, HTTPResponseStatusClass.Success);

const APPLICANT_ID = 'app_4Jd92kQz';
const REPORT_ID = 'rep_8f3kq2LmX9';
const DOCUMENT_ID = 'doc_7Hs2pQ1x';
const KEY_ID = 'key_2Zx8Vb4n';

/** The report fields of part 2 that every report carries, queued or not. */
const reportCore = (status: ReturnType<typeof M.regex> | ReturnType<typeof M.string>) => ({
  id: id('rep', REPORT_ID),
  applicant_id: id('app', APPLICANT_ID),
  destination: M.regex('^[A-Z]{2}$', 'DE'),
  visa_type: M.regex(SNAKE, 'tourist'),
  purpose: M.string(sampleReportRequest(APPLICANT_ID).purpose),
  status,
  created_at: M.regex(UTC, '2026-01-05T09:30:00Z'),
});

/** A completed report with its full risk breakdown (part 2, part 4). */
const completedReport = {
  ...reportCore(M.regex('^completed$', 'completed')),
  risk_score: M.integer(27),
  score_band: M.regex(SNAKE, 'low'),
  criteria: M.eachLike({ key: M.string('financial_means'), score: M.number(20), weight: M.number(0.4) }),
  recommendations: M.atLeastLike(M.string('Attach a bank statement issued within the last 30 days.'), 0, 1),
};

function client(key: string, url: string) {
  return createApiClient({ baseUrl: new URL(url), key, network: networkOf({}), retry: { retries: 0 } });
}

function delivery(body: unknown): Delivery {
  const text = JSON.stringify(body);
  return { seq: 0, at: 0, method: 'POST', path: '/', headers: {}, raw: Buffer.from(text), text, json: body, answered: 200, heldMs: 0, signatures: [] };
}

describe('svc as the consumer of the Visa Report Service', () => {
  it('applicants.create: a new applicant', async () => {
    await pact
      .addInteraction()
      .uponReceiving('applicants.create: a new applicant')
      .withRequest('POST', '/v1/applicants', (request) => request.headers({ ...auth(CONTRACT_KEYS.api), ...json }).jsonBody(SAMPLE_APPLICANT))
      .willRespondWith(SUCCESS(201), (response) => response.headers(jsonAnswer).jsonBody(M.like({ id: id('app', APPLICANT_ID) })))
      .executeTest(async (mock) => {
        const applicant = await upsertApplicant(client(CONTRACT_KEYS.api, mock.url), SAMPLE_APPLICANT);
        expect(applicant.id).toBe(APPLICANT_ID);
      });
  });

  it('reports.create: a report for an applicant', async () => {
    await pact
      .addInteraction()
      .given(STATES.applicant)
      .uponReceiving('reports.create: a report for an applicant')
      .withRequest('POST', '/v1/reports', (request) =>
        request.headers({ ...auth(CONTRACT_KEYS.api), ...json }).jsonBody({ ...sampleReportRequest(APPLICANT_ID), applicant_id: M.fromProviderState('${applicantId}', APPLICANT_ID) }),
      )
      .willRespondWith(SUCCESS(201), (response) => response.headers(jsonAnswer).jsonBody(M.like(reportCore(M.string('queued')))))
      .executeTest(async (mock) => {
        const report = await createReport(client(CONTRACT_KEYS.api, mock.url), sampleReportRequest(APPLICANT_ID));
        expect(report.id).toBe(REPORT_ID);
      });
  });

  it('reports.get: a completed report with its full risk breakdown', async () => {
    await pact
      .addInteraction()
      .given(STATES.completedReport)
      .uponReceiving('reports.get: a completed report with its full risk breakdown')
      .withRequest('GET', M.fromProviderState('/v1/reports/${reportId}', `/v1/reports/${REPORT_ID}`), (request) => request.headers(auth(CONTRACT_KEYS.api)))
      .willRespondWith(SUCCESS(200), (response) => response.headers(jsonAnswer).jsonBody(M.like(completedReport)))
      .executeTest(async (mock) => {
        const report = await getReport(client(CONTRACT_KEYS.api, mock.url), REPORT_ID);
        expect(report.risk_score).toBe(27);
        expect(report.criteria?.[0]?.weight).toBe(0.4);
      });
  });

  it('documents.upload: a passport PDF', async () => {
    const boundary = 'svcContractBoundary';
    const pdf = samplePassportPdf();
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\npassport\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="passport.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      Buffer.from(pdf),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    await pact
      .addInteraction()
      .uponReceiving('documents.upload: a passport PDF')
      .withRequest('POST', '/v1/documents', (request) =>
        request
          .headers({ ...auth(CONTRACT_KEYS.api), 'Content-Type': M.regex('^multipart/form-data;\\s*boundary=.+$', `multipart/form-data; boundary=${boundary}`) })
          .body('multipart/form-data', body)
          .matchingRules({ body: [{ path: '$.file', rules: [M.contentType('application/pdf')] }, { path: '$.type', rules: [M.regex('^passport$', 'passport')] }] }),
      )
      .willRespondWith(SUCCESS(201), (response) =>
        response.headers(jsonAnswer).jsonBody(M.like({ id: id('doc', DOCUMENT_ID), type: M.string('passport'), status: M.string('processing'), red_flags: M.like([]) })),
      )
      .executeTest(async (mock) => {
        const document = await uploadDocument(client(CONTRACT_KEYS.api, mock.url), { type: 'passport', file: { filename: 'passport.pdf', contentType: 'application/pdf', bytes: pdf } });
        expect(document.id).toBe(DOCUMENT_ID);
      });
  });

  it('keys.revoke: revoke a key with the admin key', async () => {
    await pact
      .addInteraction()
      .given(STATES.revocableKey)
      .uponReceiving('keys.revoke: revoke a key with the admin key')
      .withRequest('DELETE', M.fromProviderState('/v1/keys/${keyId}', `/v1/keys/${KEY_ID}`), (request) => request.headers(auth(CONTRACT_KEYS.admin)))
      .willRespondWith(SUCCESS(200))
      .executeTest(async (mock) => {
        const response = await client(CONTRACT_KEYS.admin, mock.url).DELETE('/v1/keys/{id}', { path: { id: KEY_ID } });
        expect(response.ok).toBe(true);
      });
  });

  // ---------------------------------------------------------------- strict: what svc's client assumes
  it('strict.reports-list-page: the first page of reports', async () => {
    await pact
      .addInteraction()
      .given(STATES.completedReport)
      .uponReceiving('strict.reports-list-page: the first page of reports')
      .withRequest('GET', '/v1/reports', (request) => request.headers(auth(CONTRACT_KEYS.api)))
      .willRespondWith(200, (response) =>
        response.jsonBody({ object: 'list', data: M.eachLike(M.like({ ...reportCore(M.regex('^(queued|processing|completed|failed)$', 'completed')), object: 'report' })), has_more: M.boolean(false) }),
      )
      .executeTest(async (mock) => {
        const page = await listReports(client(CONTRACT_KEYS.api, mock.url), {});
        expect(page.reports[0]?.id).toBe(REPORT_ID);
        expect(page.next.kind).toBe('end');
      });
  });

  it('strict.reports-delete-result: delete a report', async () => {
    await pact
      .addInteraction()
      .given(STATES.deletableReport)
      .uponReceiving('strict.reports-delete-result: delete a report')
      .withRequest('DELETE', M.fromProviderState('/v1/reports/${reportId}', `/v1/reports/${REPORT_ID}`), (request) => request.headers(auth(CONTRACT_KEYS.api)))
      .willRespondWith(200, (response) => response.jsonBody({ id: id('rep', REPORT_ID), object: 'report', deleted: true }))
      .executeTest(async (mock) => {
        const result = await deleteReport(client(CONTRACT_KEYS.api, mock.url), REPORT_ID);
        expect(result.deleted).toBe(true);
      });
  });

  it('strict.not-found: a deleted report', async () => {
    await pact
      .addInteraction()
      .given(STATES.deletedReport)
      .uponReceiving('strict.not-found: a deleted report')
      .withRequest('GET', M.fromProviderState('/v1/reports/${reportId}', `/v1/reports/${REPORT_ID}`), (request) => request.headers(auth(CONTRACT_KEYS.api)))
      .willRespondWith(404, (response) => response.jsonBody({ error: { code: 'not_found', message: M.string(`No such report '${REPORT_ID}'.`) } }))
      .executeTest(async (mock) => {
        const error = await getReport(client(CONTRACT_KEYS.api, mock.url), REPORT_ID).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).code).toBe('not_found');
      });
  });

  it('strict.invalid-key-body: a request with an unknown key', async () => {
    await pact
      .addInteraction()
      .uponReceiving('strict.invalid-key-body: a request with an unknown key')
      .withRequest('GET', '/v1/reports', (request) => request.headers(auth(CONTRACT_KEYS.unknown)))
      .willRespondWith(401, (response) => response.jsonBody({ error: { code: 'invalid_key', message: M.string('The API key is revoked, expired or does not exist.') } }))
      .executeTest(async (mock) => {
        const error = await listReports(client(CONTRACT_KEYS.unknown, mock.url), {}).catch((caught: unknown) => caught);
        expect((error as ApiError).kind).toBe('auth');
        expect((error as ApiError).code).toBe('invalid_key');
      });
  });

  const applicantResource = {
    id: id('app', APPLICANT_ID),
    object: 'applicant',
    given_names: M.string(String(SAMPLE_APPLICANT.given_names)),
    surname: M.string(String(SAMPLE_APPLICANT.surname)),
    created_at: M.regex(UTC, '2026-01-05T09:30:00Z'),
  };

  it('strict.applicants-update: update an applicant', async () => {
    await pact
      .addInteraction()
      .given(STATES.applicant)
      .uponReceiving('strict.applicants-update: update an applicant')
      .withRequest('POST', '/v1/applicants', (request) =>
        request.headers({ ...auth(CONTRACT_KEYS.api), ...json }).jsonBody({ id: M.fromProviderState('${applicantId}', APPLICANT_ID), occupation: SAMPLE_APPLICANT.occupation }),
      )
      .willRespondWith(200, (response) => response.jsonBody(M.like({ ...applicantResource, occupation: SAMPLE_APPLICANT.occupation })))
      .executeTest(async (mock) => {
        const applicant = await upsertApplicant(client(CONTRACT_KEYS.api, mock.url), { id: APPLICANT_ID, occupation: String(SAMPLE_APPLICANT.occupation) });
        expect(applicant.id).toBe(APPLICANT_ID);
      });
  });

  it('strict.applicants-get: an applicant', async () => {
    await pact
      .addInteraction()
      .given(STATES.applicant)
      .uponReceiving('strict.applicants-get: an applicant')
      .withRequest('GET', M.fromProviderState('/v1/applicants/${applicantId}', `/v1/applicants/${APPLICANT_ID}`), (request) => request.headers(auth(CONTRACT_KEYS.api)))
      .willRespondWith(200, (response) => response.jsonBody(M.like(applicantResource)))
      .executeTest(async (mock) => {
        const applicant = await getApplicant(client(CONTRACT_KEYS.api, mock.url), APPLICANT_ID);
        expect(applicant.object).toBe('applicant');
      });
  });

  it('strict.documents-get: a document', async () => {
    await pact
      .addInteraction()
      .given(STATES.document)
      .uponReceiving('strict.documents-get: a document')
      .withRequest('GET', M.fromProviderState('/v1/documents/${documentId}', `/v1/documents/${DOCUMENT_ID}`), (request) => request.headers(auth(CONTRACT_KEYS.api)))
      .willRespondWith(200, (response) =>
        response.jsonBody(
          M.like({
            id: id('doc', DOCUMENT_ID),
            object: 'document',
            type: M.regex('^(passport|bank_statement|employment_letter|invitation_letter|travel_itinerary|other)$', 'passport'),
            status: M.regex('^(processing|analysed|rejected)$', 'analysed'),
            red_flags: M.like([]),
            created_at: M.regex(UTC, '2026-01-05T09:30:00Z'),
          }),
        ),
      )
      .executeTest(async (mock) => {
        const document = await getDocument(client(CONTRACT_KEYS.api, mock.url), DOCUMENT_ID);
        expect(document.object).toBe('document');
      });
  });

  // ---------------------------------------------------------------- events (asynchronous messages)
  it('events.report-created: a report.created event', async () => {
    await pact
      .addAsynchronousInteraction()
      .given(STATES.reportCreated)
      // The webhook of openapi.yaml it is checked against (test/contracts/openapi.test.ts).
      .reference('AsyncAPI', 'operationId', 'reportCreatedEvent')
      .expectsToReceive('events.report-created: a report.created event', (message) =>
        message.withJSONContent(M.like({ id: id('evt', 'evt_9Qw3Er5t'), type: M.regex('^report\\.created$', 'report.created'), data: M.like({}) })),
      )
      .executeTest(async (message) => {
        const event = eventOf(delivery(message.contents.content));
        expect(event.type).toBe('report.created');
        expect(event.id).toMatch(/^evt_/);
      });
  });

  it('events.report-completed: a report.completed event', async () => {
    await pact
      .addAsynchronousInteraction()
      .given(STATES.reportCompleted)
      // The webhook of openapi.yaml it is checked against (test/contracts/openapi.test.ts).
      .reference('AsyncAPI', 'operationId', 'reportCompletedEvent')
      .expectsToReceive('events.report-completed: a report.completed event', (message) =>
        message.withJSONContent(
          M.like({
            id: id('evt', 'evt_3Tg8Hn2b'),
            type: M.regex('^report\\.completed$', 'report.completed'),
            created_at: M.regex(UTC, '2026-01-05T09:30:42Z'),
            data: M.like({ risk_score: M.integer(27) }),
          }),
        ),
      )
      .executeTest(async (message) => {
        const event = eventOf(delivery(message.contents.content));
        expect(event.type).toBe('report.completed');
        expect((event.data as { risk_score: number }).risk_score).toBe(27);
      });
  });

  it('events.document-succeeded: a document.processed or document.parsed event', async () => {
    await pact
      .addAsynchronousInteraction()
      .given(STATES.documentAnalysed)
      // The webhook of openapi.yaml it is checked against (test/contracts/openapi.test.ts).
      .reference('AsyncAPI', 'operationId', 'documentProcessedEvent')
      .expectsToReceive('events.document-succeeded: a document.processed or document.parsed event', (message) =>
        message.withJSONContent(M.like({ id: id('evt', 'evt_5Lp0Mz7c'), type: M.regex('^document\\.(processed|parsed)$', 'document.processed'), data: M.like({}) })),
      )
      .executeTest(async (message) => {
        const event = eventOf(delivery(message.contents.content));
        expect(event.type).toMatch(/^document\./);
      });
  });
});

/** A pact file without what changes from one generation to the next (the versions of Pact that wrote it). */
function stable(text: string): unknown {
  const pactFile = JSON.parse(text) as { metadata?: Record<string, unknown> };
  const { pactRust: _rust, pactJs: _js, ...metadata } = pactFile.metadata ?? {};
  return { ...pactFile, metadata };
}

it('contracts/ is what the consumer tests make, and each interaction backs a Pact check of the catalogue', () => {
  const name = `${PACT_CONSUMER}-${PACT_PROVIDER}.json`;
  const fresh = readFileSync(join(dir, name), 'utf8');
  // The check an interaction backs is named before the colon of its description.
  for (const interaction of (JSON.parse(fresh) as { interactions: Array<{ description: string }> }).interactions) {
    expect(CHECKS_BY_ID.get(checkOfInteraction(interaction.description))?.verifiedBy, interaction.description).toBe('pact');
  }
  if (WRITE) return;
  expect(stable(readFileSync(join(CONTRACTS, name), 'utf8')), 'contracts/ is stale: run `npm run contracts` and commit contracts/').toEqual(stable(fresh));
});
