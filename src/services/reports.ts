import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiClient } from '../api/client.js';
import { dataOf } from '../api/data.js';
import type { DeletionResult, ListReportsQuery, Report, ReportCreate, ReportList } from '../api/types.js';
import { SvcError } from '../errors.js';

export async function getReport(client: ApiClient, id: string): Promise<Report> {
  return dataOf(await client.GET('/v1/reports/{id}', { params: { path: { id } } }));
}

export async function listReports(client: ApiClient, query: ListReportsQuery): Promise<ReportList> {
  return dataOf(await client.GET('/v1/reports', { params: { query } }));
}

/** Follows `has_more` and `starting_after` from the given page onwards, up to `max` reports. */
export async function listAllReports(client: ApiClient, query: ListReportsQuery, max = Number.POSITIVE_INFINITY): Promise<Report[]> {
  const reports: Report[] = [];
  let cursor = query.starting_after;
  for (;;) {
    const page = await listReports(client, { ...query, starting_after: cursor });
    reports.push(...page.data);
    const last = page.data.at(-1);
    if (!page.has_more || !last || reports.length >= max) return reports.slice(0, max);
    cursor = last.id;
  }
}

export async function deleteReport(client: ApiClient, id: string): Promise<DeletionResult> {
  return dataOf(await client.DELETE('/v1/reports/{id}', { params: { path: { id } } }));
}

export async function createReport(client: ApiClient, input: ReportCreate): Promise<Report> {
  return dataOf(await client.POST('/v1/reports', { body: input }));
}

function isFinished(report: Report): boolean {
  return report.status === 'completed' || report.status === 'failed';
}

const FIRST_POLL_INTERVAL_MS = 500;
const MAX_POLL_INTERVAL_MS = 5_000;

/**
 * Polls the report until it is completed or failed, 0.5 s apart at first and twice as long each
 * time, up to 5 s. Past `timeoutMs` it throws a timedOut error: the report may still finish.
 */
export async function waitForReport(client: ApiClient, id: string, options: { timeoutMs: number; onPoll?: (report: Report) => void }): Promise<Report> {
  const deadline = Date.now() + options.timeoutMs;
  for (let interval = FIRST_POLL_INTERVAL_MS; ; interval = Math.min(interval * 2, MAX_POLL_INTERVAL_MS)) {
    const report = await getReport(client, id);
    options.onPoll?.(report);
    if (isFinished(report)) return report;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new SvcError(
        'timedOut',
        'wait_timed_out',
        `report ${id} is still ${report.status} after ${options.timeoutMs / 1000} s`,
        `it may still finish: \`svc reports wait ${id}\` waits again, --wait-timeout sets for how long`,
      );
    }
    await sleep(Math.min(interval, left));
  }
}
