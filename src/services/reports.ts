import type { ApiClient } from '../api/client.js';
import { dataOf } from '../api/data.js';
import type { DeletionResult, ListReportsQuery, Report, ReportList } from '../api/types.js';

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
