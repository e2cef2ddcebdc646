/**
 * openapi.yaml bounds every string, array and integer (lint:security asks it). Where the
 * specification is silent, those bounds are openapi.yaml's choices: they bind the sandbox, which
 * refuses a request beyond them and answers within them, and never svc's requests to another
 * implementation, which may take more.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Applicant, Document, Report } from '../../src/api/types.js';
import { findProblems } from '../../src/api/validate.js';
import { ExitCode } from '../../src/core/errors.js';
import { startOtherImplementation, type OtherImplementation } from '../helpers/other-implementation.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

const PROFILE = { given_names: 'Anna Maria', surname: 'Eriksson', date_of_birth: '1984-08-12', nationality: 'SE' };
const TRIPS = (count: number) => Array.from({ length: count }, () => ({ country: 'FR', year: 2020, overstayed: false }));
const LONG_APPLICANT_ID = `app_${'a'.repeat(61)}`;

let sandbox: RunningSandbox;
beforeAll(async () => {
  // Enterprise: no practical rate limit, for the 40 uploads and the polls below.
  sandbox = await startSandboxProcess(['--quiet', '--plan', 'enterprise']);
});
afterAll(async () => {
  expect(await sandbox.stop()).toBe(0);
});

function postJson(path: string, body: unknown, key = sandbox.keys.test): Promise<Response> {
  return sandbox.fetch(path, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

function upload(filename: string, content: string, fields: Record<string, string> = { type: 'bank_statement' }): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([content], { type: 'text/plain' }), filename);
  return sandbox.fetch('/v1/documents', { method: 'POST', body: form });
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 50));

async function answered<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

describe('the sandbox refuses a request beyond a bound of openapi.yaml: 422 invalid_request naming the field and the bound', () => {
  it.each<[string, () => Promise<Response>, string, string]>([
    ['an applicant_id of 65 characters', () => postJson('/v1/reports', { applicant_id: LONG_APPLICANT_ID, destination: 'DE', visa_type: 'tourist', purpose: 'Holiday' }), 'applicant_id', 'applicant_id: must NOT have more than 64 characters'],
    ['101 trips of travel history', () => postJson('/v1/applicants', { ...PROFILE, travel_history: TRIPS(101) }), 'travel_history', 'travel_history: must NOT have more than 100 items'],
    ['101 previous refusals', () => postJson('/v1/applicants', { ...PROFILE, previous_refusals: 101 }), 'previous_refusals', 'previous_refusals: must be <= 100'],
    ['a key locked to 51 addresses', () => postJson('/v1/keys', { allowed_ips: Array.from({ length: 51 }, (_, index) => `192.0.2.${index + 1}`) }, sandbox.keys.admin), 'allowed_ips', 'allowed_ips: must NOT have more than 50 items'],
    ['an applicant_id filter of 65 characters', () => sandbox.fetch(`/v1/reports?applicant_id=${LONG_APPLICANT_ID}`), 'applicant_id', 'applicant_id: must NOT have more than 64 characters'],
    ['a file name of 256 characters', () => upload(`${'n'.repeat(252)}.txt`, 'Bank statement'), 'file', 'the file name is longer than 255 characters; rename the file'],
  ])('%s', async (_name, send, param, message) => {
    const body = await answered<{ error: { code: string; message: string; param: string } }>(await send(), 422);
    expect(body.error).toEqual({ code: 'invalid_request', message, param });
  });
});

describe('the sandbox answers within the bounds of openapi.yaml, however long the input it echoes', () => {
  it('an unknown field named by 5000 characters: the message still says what is wrong, within ErrorDetail', async () => {
    const name = 'x'.repeat(5000);
    const body = await answered<{ error: { message: string; param: string } }>(await postJson('/v1/applicants', { ...PROFILE, [name]: 1 }), 422);
    expect(findProblems('Error', body)).toEqual([]);
    expect(body.error.message).toBe(`${'x'.repeat(99)}…: is not a known field`);
    expect(body.error.param).toBe(`${'x'.repeat(99)}…`);
  });

  it('more problems than a message can hold: the first five, and how many more', async () => {
    const unknown = Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`field_${index}`, 1]));
    const body = await answered<{ error: { message: string } }>(await postJson('/v1/applicants', { ...PROFILE, ...unknown }), 422);
    expect(findProblems('Error', body)).toEqual([]);
    expect(body.error.message).toBe('field_0: is not a known field; field_1: is not a known field; field_2: is not a known field; field_3: is not a known field; field_4: is not a known field; and 3 more');
  });

  it('a report id of 3000 characters: 404 with a message clipped to ErrorDetail.message', async () => {
    const body = await answered<{ error: { code: string; message: string } }>(await sandbox.fetch(`/v1/reports/rep_${'a'.repeat(3000)}`), 404);
    expect(findProblems('Error', body)).toEqual([]);
    expect(body.error.code).toBe('not_found');
    expect(body.error.message).toMatch(/^no report rep_a+…$/);
  });

  it('40 documents with a red flag each: the red-flag criterion names ten and counts the rest, within Criterion.detail', async () => {
    const applicant = await answered<Applicant>(await postJson('/v1/applicants', PROFILE), 201);
    const documents: Document[] = [];
    for (let index = 0; index < 40; index++) {
      documents.push(await answered<Document>(await upload(`blank-${index}.txt`, '   \n', { type: 'bank_statement', applicant_id: applicant.id }), 201));
    }
    for (const document of documents) {
      let status = document.status;
      while (status === 'processing') {
        await pause();
        status = (await answered<Document>(await sandbox.fetch(`/v1/documents/${document.id}`), 200)).status;
      }
      expect(status).toBe('analysed');
    }
    let report = await answered<Report>(await postJson('/v1/reports', { applicant_id: applicant.id, destination: 'DE', visa_type: 'business', purpose: 'Meetings with suppliers' }), 201);
    while (report.status === 'queued' || report.status === 'processing') {
      await pause();
      report = await answered<Report>(await sandbox.fetch(`/v1/reports/${report.id}`), 200);
    }
    expect(findProblems('Report', report)).toEqual([]);
    const detail = report.criteria!.find((criterion) => criterion.key === 'document_red_flags')!.detail;
    expect(detail).toBe(`40 red flags on 40 documents: ${Array(10).fill('document_empty (bank statement)').join(', ')}, and 30 more`);
  });
});

describe("svc sends a value beyond the sandbox's bounds to another implementation, which takes it", () => {
  const KEY = 'svc_test_otherimplementation0123456789ab';
  let implementation: OtherImplementation;
  let env: Record<string, string>;
  const svc = (args: string[]) => runSvc(args, { env: { ...env, SVC_BASE_URL: implementation.url, SVC_API_KEY: KEY, SVC_RETRIES: '0' } });

  beforeAll(async () => {
    implementation = await startOtherImplementation();
    env = isolatedEnv();
  });
  afterAll(() => implementation.close());

  it('applicants create --file: 101 trips and 150 refusals are sent as given (the sandbox refuses them)', async () => {
    const applicant = { first_name: 'Ana', family_name: 'Silva', passport: { number: 'X1234567', expires: '2031-05-01' }, travel_history: TRIPS(101), previous_refusals: 150 };
    const file = join(env.HOME!, 'applicant.json');
    writeFileSync(file, JSON.stringify(applicant));
    const result = await svc(['applicants', 'create', '--file', file, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(implementation.requests.at(-1)!.body)).toEqual(applicant);

    const sandboxFile = join(env.HOME!, 'sandbox-applicant.json');
    writeFileSync(sandboxFile, JSON.stringify({ ...PROFILE, travel_history: TRIPS(101) }));
    const refused = await runSvc(['applicants', 'create', '--file', sandboxFile], { env: sandbox.env });
    expect(refused.code).toBe(ExitCode.invalidInput);
    expect(refused.stderr).toContain('422 invalid_request: travel_history: must NOT have more than 100 items');
  });

  it('reports create and reports list: a purpose of 600 characters and an applicant id of 65 are sent as given', async () => {
    const applicant = JSON.parse((await svc(['applicants', 'create', '--file', join(env.HOME!, 'applicant.json'), '--json'])).stdout) as { id: string };
    const purpose = 'A year of work and travel. '.repeat(23).slice(0, 600);
    const created = await svc(['reports', 'create', '--applicant', applicant.id, '--destination', 'NZ', '--visa-type', 'work_holiday', '--purpose', purpose, '--json']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(implementation.requests.at(-1)!.body).purpose).toBe(purpose);

    const listed = await svc(['reports', 'list', '--applicant', LONG_APPLICANT_ID, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(new URL(implementation.requests.at(-1)!.path, implementation.url).searchParams.get('applicant_id')).toBe(LONG_APPLICANT_ID);
  });
});
