import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { ERROR_CODES, EVENT_SCHEMAS, OPERATIONS } from '../src/api/operations.js';

const root = fileURLToPath(new URL('..', import.meta.url));

it.each(['schemas.json', 'operations.ts'])('the committed src/api/%s is what `npm run generate` makes of openapi.yaml', (file) => {
  const fresh = mkdtempSync(join(tmpdir(), 'svc-schemas-'));
  execFileSync(process.execPath, [join(root, 'scripts/schemas.js'), fresh], { stdio: 'pipe' });
  expect(readFileSync(join(root, 'src/api', file), 'utf8'), `run \`npm run generate\` and commit src/api/${file}`).toBe(
    readFileSync(join(fresh, file), 'utf8'),
  );
});

it("reads openapi.yaml's operations, error codes and events as it states them", () => {
  expect(OPERATIONS.map((operation) => `${operation.method} ${operation.path} ${operation.id}`)).toEqual([
    'GET /v1/reports listReports',
    'POST /v1/reports createReport',
    'GET /v1/reports/{id} getReport',
    'DELETE /v1/reports/{id} deleteReport',
    'POST /v1/applicants upsertApplicant',
    'GET /v1/applicants/{id} getApplicant',
    'POST /v1/documents uploadDocument',
    'GET /v1/documents/{id} getDocument',
    'GET /v1/keys listKeys',
    'POST /v1/keys createKey',
    'GET /v1/keys/{id} getKey',
    'DELETE /v1/keys/{id} revokeKey',
  ]);
  expect(OPERATIONS.find((operation) => operation.id === 'upsertApplicant')!.successes).toEqual({ 200: 'Applicant', 201: 'Applicant' });
  expect(OPERATIONS.find((operation) => operation.id === 'createKey')!.successes).toEqual({ 201: 'KeyWithSecret' });
  expect(OPERATIONS.find((operation) => operation.id === 'revokeKey')!.successes).toEqual({ 200: 'KeyRevocation' });
  expect(ERROR_CODES).toEqual({
    400: ['invalid_json'],
    401: ['unauthorized', 'invalid_key'],
    403: ['forbidden', 'ip_not_allowed'],
    404: ['not_found'],
    413: ['file_too_large', 'payload_too_large'],
    415: ['unsupported_media_type'],
    422: ['invalid_request'],
    429: ['rate_limited', 'quota_exceeded'],
    500: ['internal_error'],
  });
  expect(EVENT_SCHEMAS['report.completed']).toBe('ReportCompletedEvent');
  expect(Object.keys(EVENT_SCHEMAS)).toEqual([
    'report.created',
    'report.completed',
    'report.failed',
    'document.parsed',
    'document.processed',
    'document.rejected',
  ]);
});
