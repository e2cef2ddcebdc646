/**
 * The kit against a workspace with a long history: the sandbox's test workspace holding 2,400 reports
 * made before the run (121 of its pages), behind the test proxy, which counts the list requests. The
 * three checks that look for a report in the list cost the same requests as against an empty
 * workspace, and where the list gives the kit nothing to stop at (no created_at, not newest first)
 * they stop at a bound and are inconclusive, naming it, unless a page size the answer shows takes
 * the kit to the end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networkOf } from '../../src/api/network.js';
import type { Report } from '../../src/api/types.js';
import { MAX_LIST_PAGES } from '../../src/conformance/list-search.js';
import { type ConformanceJson, toJson } from '../../src/conformance/report.js';
import { runConformance } from '../../src/conformance/run.js';
import { SAMPLE_APPLICANT, sampleReportRequest } from '../../src/conformance/samples.js';
import { hashSecret, SandboxStore } from '../../src/sandbox/database.js';
import { type ProxiedRequest, type ProxyState, startMutatingImplementation, type Variant } from '../helpers/mutating-implementation.js';
import { type InProcessSandbox, startSandboxInProcess } from '../helpers/sandbox.js';
import { type Json, reports } from './variants.js';

const HISTORY = 2_400;
const LIST_CHECKS = ['reports.list', 'reports.delete', 'reports.delete-permanent', 'auth.workspace-isolation'];

const sandboxes: InProcessSandbox[] = [];
afterAll(async () => {
  for (const sandbox of sandboxes) await sandbox.stop();
});

async function sandboxWithHistory(size: number): Promise<InProcessSandbox> {
  const sandbox = await startSandboxInProcess({ plan: 'enterprise', log: undefined });
  sandboxes.push(sandbox);
  if (size > 0) await seedHistory(sandbox, size);
  return sandbox;
}

/**
 * `size` reports of the test workspace made before the run: copies of one the sandbox analysed, each
 * created a minute after the one before, the last an hour ago, written to the sandbox's store in that
 * order, from which its list answers (newest first).
 */
async function seedHistory(sandbox: InProcessSandbox, size: number): Promise<void> {
  const post = async (path: string, body: unknown) =>
    (await (await sandbox.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as Json;
  const applicant = await post('/v1/applicants', SAMPLE_APPLICANT);
  const made = await post('/v1/reports', sampleReportRequest(String(applicant.id)));
  let template = made as unknown as Report;
  while (template.status !== 'completed') template = (await (await sandbox.fetch(`/v1/reports/${String(made.id)}`)).json()) as Report;
  const store = new SandboxStore(sandbox.dataDir);
  try {
    const { workspaceId } = store.keyByHash(hashSecret(sandbox.keys.test))!;
    const lastAt = Date.now() - 3_600_000;
    store.transaction(() => {
      for (let index = 0; index < size; index++) {
        const createdAt = new Date(lastAt - (size - 1 - index) * 60_000).toISOString();
        store.insertReport(workspaceId, { ...template, id: `rep_history${String(index).padStart(6, '0')}`, created_at: createdAt });
      }
    });
  } finally {
    store.close();
  }
}

const isListRequest = (request: ProxiedRequest) => request.method === 'GET' && /^\/v1\/reports(\?|$)/.test(request.path);

/** The list checks against the sandbox behind the proxy changed by `variant`, and the list requests the proxy saw. */
async function verify(
  sandbox: InProcessSandbox,
  variant: Omit<Variant, 'name' | 'change' | 'breaks'> = {},
): Promise<{ checks: Record<string, ConformanceJson['checks'][number]>; listRequests: number; requests: number }> {
  let listRequests = 0;
  const counting: Variant = {
    name: 'long-history',
    change: '',
    breaks: [],
    ...variant,
    request(request, state) {
      if (isListRequest(request)) listRequests++;
      return variant.request?.(request, state);
    },
  };
  const state: ProxyState = { keys: sandbox.keys, created: new Map(), revoked: new Set(), applicants: new Map(), secret: '' };
  const implementation = await startMutatingImplementation(sandbox, counting, state);
  try {
    const result = await runConformance({
      baseUrl: new URL(implementation.baseUrl),
      network: networkOf({}, { caCert: { path: implementation.caCertPath, source: 'the test' } }),
      keys: { api: sandbox.keys.test, other: sandbox.keys.other_workspace },
      level: 'spec',
      env: process.env,
      fast: true,
      only: LIST_CHECKS,
      timeouts: { completionMs: 30_000 },
    });
    return { checks: Object.fromEntries(toJson(result).checks.map((check) => [check.id, check])), listRequests, requests: result.run.requests };
  } finally {
    await implementation.close();
  }
}

let empty: Awaited<ReturnType<typeof verify>>;
let long: InProcessSandbox;

beforeAll(async () => {
  empty = await verify(await sandboxWithHistory(0));
  long = await sandboxWithHistory(HISTORY);
});

describe('the list checks against a workspace with a long history', () => {
  it('send as many list requests as against an empty workspace, stopping where the newest-first list passes the report', async () => {
    for (const id of LIST_CHECKS) expect(empty.checks[id], id).toMatchObject({ status: 'passed' });
    const run = await verify(long);
    for (const id of LIST_CHECKS) expect(run.checks[id], id).toMatchObject({ status: 'passed' });
    expect(run.listRequests).toBe(empty.listRequests);
    expect(run.checks['reports.delete-permanent']!.detail).toMatch(
      /^(rep_\w+) gone from its reads and from the list \(passed reports created before \1 on page 1 of a list newest first \(1 page\)\)$/,
    );
    expect(run.checks['reports.list']!.detail).toMatch(/^rep_\w+ found on the first page$/);
    // The run record counts every request the kit sent, the list's among them.
    expect(run.requests).toBeGreaterThan(run.listRequests);
  });

  it("fail reports.list where the newest-first list has passed the kit's report without it, on its first page", async () => {
    // A list that leaves out the reports of the last ten minutes: the kit's, never the history's.
    const recent = Date.now() - 600_000;
    const run = await verify(long, {
      response(response, request) {
        const body = response.json as Json | undefined;
        if (isListRequest(request) && Array.isArray(body?.data))
          body.data = (body.data as Json[]).filter((report) => Date.parse(String(report.created_at)) < recent);
      },
    });
    expect(run.checks['reports.list']).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(
        /^expected the list to hold the kit's report (rep_\w+); got \d+ reports without it \(passed reports created before \1 on page 1 of a list newest first \(1 page\)\)/,
      ),
    });
    expect(run.listRequests).toBe(empty.listRequests);
  });

  it('stop at the bound where the list shows no created_at, inconclusive, naming how far the kit read and why', async () => {
    const run = await verify(long, { response: (response, request) => isListRequest(request) && reports(response, (report) => void delete report.created_at) });
    expect(run.checks['reports.list']).toMatchObject({ status: 'passed' });
    expect(run.checks['reports.delete-permanent']).toMatchObject({
      status: 'inconclusive',
      detail: expect.stringMatching(
        new RegExp(
          `^rep_\\w+ is gone from its reads, but the workspace's list was not read to its end \\(${MAX_LIST_PAGES * 20} reports read: ${MAX_LIST_PAGES} pages by has_more, after the last id, the most the kit reads of one list, and more follow; it could not stop sooner: its reports show no created_at\\)`,
        ),
      ),
    });
    expect(run.listRequests).toBeLessThanOrEqual(empty.listRequests + MAX_LIST_PAGES);
  });

  it('stop at the bound where the list is not newest first', async () => {
    // Each page of the sandbox's, oldest first within it.
    const run = await verify(long, {
      response(response, request) {
        const body = response.json as Json | undefined;
        if (isListRequest(request) && Array.isArray(body?.data)) body.data = body.data.toReversed();
      },
    });
    expect(run.checks['reports.delete-permanent']).toMatchObject({
      status: 'inconclusive',
      detail: expect.stringContaining('it could not stop sooner: it is not newest first (page 1 lists a report created after the one above it)'),
    });
    expect(run.checks['reports.list']).toMatchObject({ status: 'passed' });
  });

  it('ask for pages of 100 where the answer shows the parameter of their size, and read such a list to its end', async () => {
    // No created_at to stop at, and the limit the list was read with echoed in its answer.
    const run = await verify(long, {
      response(response, request) {
        if (!isListRequest(request)) return;
        reports(response, (report) => void delete report.created_at);
        const body = response.json as Json | undefined;
        if (body) body.limit = Number(new URL(request.path, 'https://x').searchParams.get('limit') ?? 20);
      },
    });
    expect(run.checks['reports.delete-permanent']).toMatchObject({
      status: 'passed',
      detail: expect.stringMatching(
        /\(2[45] pages of up to 100 \(limit=100, where the first answer showed limit 20\) by has_more, after the last id \(has_more is false\)\)$/,
      ),
    });
  });
});
