/**
 * The checks of a failed report (events.report-failed, events.report-failed-fields) against the real
 * sandbox behind the test proxy, the kit run in this process: the input of failing_report used, its
 * file uploaded for its own applicant, and what the kit says of a report it expected to fail and did
 * not see fail (never "ended undefined").
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { networkOf } from '../../src/api/network.js';
import { readKitFixtures } from '../../src/conformance/fixtures.js';
import { type ConformanceJson, toJson } from '../../src/conformance/report.js';
import { runConformance } from '../../src/conformance/run.js';
import { SAMPLE_APPLICANT, sampleUnsafeFile } from '../../src/conformance/samples.js';
import { type ProxyState, startMutatingImplementation, startWebhookHub, type Variant, type WebhookHub } from '../helpers/mutating-implementation.js';
import { type InProcessSandbox, startSandboxInProcess } from '../helpers/sandbox.js';
import { freePort } from '../helpers/server.js';
import { reports } from './variants.js';

const SECRET = 'whsec_failingreport0123456789abcdefghijk';
const CHECKS = ['events.report-failed', 'events.report-failed-fields'];

let sandbox: InProcessSandbox;
let hub: WebhookHub;
const dir = mkdtempSync(join(tmpdir(), 'svc-failing-report-'));

beforeAll(async () => {
  hub = await startWebhookHub();
  sandbox = await startSandboxInProcess({ plan: 'enterprise', webhookUrls: [hub.url], webhookSecret: SECRET, log: undefined });
});

afterAll(async () => {
  await sandbox?.stop();
  await hub?.close();
});

/** The kit's two checks of a failed report against the sandbox changed by `variant`, with `fixtures` (YAML, and an --applicant-file) and its report and event timeouts. */
async function verify(
  variant: Variant,
  fixtures: string,
  { completionMs = 30_000, eventMs = 30_000, applicantFile }: { completionMs?: number; eventMs?: number; applicantFile?: string } = {},
): Promise<Record<string, ConformanceJson['checks'][number]>> {
  const state: ProxyState = { keys: sandbox.keys, created: new Map(), revoked: new Set(), applicants: new Map(), secret: SECRET };
  const implementation = await startMutatingImplementation(sandbox, variant, state);
  const port = await freePort();
  const unsubscribe = hub.add({ port, variant, state, ca: undefined });
  const fixturesPath = join(dir, `${variant.name}.yaml`);
  writeFileSync(fixturesPath, fixtures);
  try {
    const result = await runConformance({
      baseUrl: new URL(implementation.baseUrl),
      network: networkOf({}, { caCert: { path: implementation.caCertPath, source: 'the test' } }),
      keys: { api: sandbox.keys.test },
      fixtures: await readKitFixtures(fixturesPath, applicantFile),
      webhookSecret: SECRET,
      webhookPort: port,
      level: 'spec',
      env: process.env,
      fast: true,
      only: CHECKS,
      timeouts: { completionMs, eventMs },
    });
    return Object.fromEntries(toJson(result).checks.map((check) => [check.id, check]));
  } finally {
    unsubscribe();
    await implementation.close();
  }
}

const dropReportFailed = (event: { body: Record<string, unknown> }) => (event.body.type === 'report.failed' ? 'drop' : undefined);

it("makes the report of failing_report (its report fields over the fixtures' own) and judges its report.failed", async () => {
  const checks = await verify({ name: 'unknown-destination', change: '', breaks: [] }, 'failing_report:\n  report: { destination: ZZ }\n');
  expect(checks['events.report-failed']).toMatchObject({ status: 'passed' });
  expect(checks['events.report-failed']!.detail).toMatch(/^report\.failed for rep_\w+ \(the failing_report of --fixtures\), which ended "failed"$/);
  expect(checks['events.report-failed-fields']).toMatchObject({ status: 'passed' });
});

it("lays failing_report's applicant and report over those of --applicant-file and the fixtures", async () => {
  // A Japanese applicant (--applicant-file) asking for a report on Japan: the sandbox fails it (invalid_input); on the kit's own Swedish applicant it would complete.
  const applicantFile = join(dir, 'applicant.json');
  writeFileSync(applicantFile, JSON.stringify({ ...SAMPLE_APPLICANT, nationality: 'JP' }));
  const checks = await verify(
    { name: 'own-country', change: '', breaks: [] },
    'report: { destination: FR, visa_type: tourist, purpose: Holiday }\nfailing_report:\n  report: { destination: JP }\n  applicant: { occupation: Teacher }\n',
    { applicantFile },
  );
  expect(checks['events.report-failed']).toMatchObject({ status: 'passed' });
});

it('uploads the file of failing_report for its applicant before the report', async () => {
  // A Windows executable as the applicant's passport: the sandbox rejects it, and the report fails (document_unreadable).
  writeFileSync(join(dir, 'unreadable.exe'), sampleUnsafeFile());
  const checks = await verify({ name: 'unreadable-file', change: '', breaks: [] }, 'failing_report:\n  file: unreadable.exe\n');
  expect(checks['events.report-failed']).toMatchObject({ status: 'passed' });
});

it('fails events.report-failed when the report ends failed and no report.failed comes; events.report-failed-fields is then skipped, saying why', async () => {
  const checks = await verify(
    { name: 'no-report-failed', change: '', breaks: [], event: dropReportFailed },
    'failing_report:\n  report: { destination: ZZ }\n',
    // The event never comes, whatever the wait.
    { eventMs: 5_000 },
  );
  expect(checks['events.report-failed']).toMatchObject({ status: 'failed' });
  expect(checks['events.report-failed']!.detail).toMatch(
    /^expected report\.failed for rep_\w+, which ended "failed"; got none within 5 s \(the failing_report of --fixtures/,
  );
  expect(checks['events.report-failed-fields']).toMatchObject({ status: 'skipped' });
  expect(checks['events.report-failed-fields']!.detail).toMatch(/which ended "failed" \(events\.report-failed judges that\)$/);
});

it('is inconclusive, not failed, when the report of failing_report completes: the fixture is to be changed', async () => {
  const checks = await verify({ name: 'known-destination', change: '', breaks: [] }, 'failing_report:\n  report: { destination: JP }\n');
  expect(checks['events.report-failed']).toMatchObject({ status: 'inconclusive' });
  expect(checks['events.report-failed']!.detail).toMatch(
    /^the failing_report of --fixtures \(rep_\w+\) ended "completed", not in a failed outcome; give as "failing_report"/,
  );
});

it('names failing_report when the file the kit has rejected is refused at upload, and the report of its applicant completes', async () => {
  const checks = await verify(
    {
      name: 'refused-at-upload',
      change: '',
      breaks: [],
      request: (request) =>
        request.method === 'POST' && request.path === '/v1/documents' && request.body.includes('filename="passport.exe"')
          ? { status: 415, json: { error: { code: 'unsupported_media_type', message: 'a passport is a PDF, JPEG or PNG file' } } }
          : undefined,
    },
    '{}\n',
  );
  expect(checks['events.report-failed']).toMatchObject({ status: 'skipped' });
  expect(checks['events.report-failed']!.detail).toMatch(
    /^the report for an applicant whose only document was refused at upload \(415\) \(rep_\w+\) ended "completed", and the specification states no input that must fail a report: give one the implementation fails as "failing_report" in --fixtures$/,
  );
});

it('says what the report showed when it shows no status, never "ended undefined"', async () => {
  const checks = await verify(
    {
      name: 'no-status',
      change: '',
      breaks: [],
      // Neither a status nor the error object of a failed report: nothing to tell where it stands.
      response: (response) =>
        reports(response, (report) => {
          delete report.status;
          delete report.error;
        }),
      event: dropReportFailed,
    },
    '{}\n',
    { completionMs: 2_000 },
  );
  for (const id of CHECKS) {
    expect(checks[id], id).toMatchObject({ status: 'skipped' });
    expect(checks[id]!.detail, id).toContain('the report for an applicant whose only document was rejected (rep_');
    expect(checks[id]!.detail, id).toContain(') showed no status 2 s after its creation, and the specification states no input that must fail a report');
    expect(checks[id]!.detail, id).not.toContain('undefined');
  }
});

it('says that the report could not be read back when its read is refused', async () => {
  const checks = await verify(
    {
      name: 'report-unreadable',
      change: '',
      breaks: [],
      request: (request) =>
        request.method === 'GET' && /^\/v1\/reports\/rep_/.test(request.path)
          ? { status: 404, json: { error: { code: 'not_found', message: 'gone' } } }
          : undefined,
      event: dropReportFailed,
    },
    '{}\n',
  );
  expect(checks['events.report-failed']).toMatchObject({ status: 'skipped' });
  expect(checks['events.report-failed']!.detail).toMatch(
    /^the report for an applicant whose only document was rejected \(rep_\w+\) could not be read back: GET \/v1\/reports\/rep_\w+ answered 404 \{"error":\{"code":"not_found","message":"gone"\}\}, and the specification/,
  );
  expect(checks['events.report-failed-fields']!.detail).not.toContain('undefined');
});
