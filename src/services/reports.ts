import { jsonOf, parsedOrUndefined, resourceIn, withDefaults, fetchedResource } from '../api/answer.js';
import type { ApiClient } from '../api/client.js';
import { listItems, type NextPage, nextPage } from '../api/list-answer.js';
import { type ListingPage, MAX_PAGES, type PagingStop, readListing } from '../api/paging.js';
import { reportOutcome } from '../api/report-outcome.js';
import type { Answered, DeletionResult, Identified, ReportAnswer, ReportCreate } from '../api/types.js';
import { SvcError } from '../core/errors.js';
import { type Clock, systemClock } from '../core/clock.js';

/** Query parameters of GET /v1/reports: only those the user asked for are sent (the spec shows none). */
export type ReportsQuery = Record<string, string | number | undefined>;

export async function getReport(client: ApiClient, id: string): Promise<Identified<ReportAnswer>> {
  const answer = await client.GET('/v1/reports/{id}', { path: { id } });
  return fetchedResource(jsonOf(answer, `GET /v1/reports/${id}`), `GET /v1/reports/${id}`);
}

/** The body of POST /v1/reports: the four request fields of part 4, those left out not sent. */
export type ReportRequest = Partial<Record<keyof ReportCreate, string>>;

/**
 * Creates a report; any success status is taken (201, and 200 or 202 of other implementations). The
 * spec states the answer is the report (part 4): one without it is refused, saying the report may
 * exist all the same.
 */
export async function createReport(client: ApiClient, input: ReportRequest): Promise<Identified<ReportAnswer>> {
  // openapi.yaml's type holds the assumed visa type enum; the service decides what it takes.
  const answer = await client.POST('/v1/reports', { body: input as ReportCreate });
  return fetchedResource(
    jsonOf(answer, 'POST /v1/reports'),
    'POST /v1/reports',
    `the service took the request (${answer.status}), so the report may exist: \`svc reports list\` shows the latest reports before you send it again`,
  );
}

/**
 * Deletes a report. The answer is not shown by the spec: 200, 202 or 204, with a body or none. The
 * result is the answer's own object, with `id` and `deleted: true` added where it leaves them out.
 */
export async function deleteReport(client: ApiClient, id: string): Promise<Answered<DeletionResult>> {
  const answer = await client.DELETE('/v1/reports/{id}', { path: { id } });
  return withDefaults(parsedOrUndefined(answer.text), { id, deleted: true });
}

export interface ReportPage {
  reports: ReportAnswer[];
  /** What the answer says of the next page. */
  next: NextPage;
  /** The URL this page was read from. */
  url: URL;
}

/** One page of GET /v1/reports: with `query`, or with the query string of a next page's URL. */
async function readPage(client: ApiClient, request: { query: ReportsQuery } | { search: string }): Promise<ReportPage> {
  const answer = await client.GET('/v1/reports', request);
  const body = jsonOf(answer, 'GET /v1/reports');
  const reports = listItems(body);
  if (!reports) {
    throw new SvcError(
      'server',
      'list_unreadable',
      'GET /v1/reports answered with no list svc can read: no array of reports, or several arrays that could each be it',
      'svc reads a bare array, the array in `data`, or the one array of resources in the answer; the service answers in another shape',
    );
  }
  const url = new URL(answer.url);
  return { reports: reports.map(resourceIn), next: nextPage(url, body, (name) => answer.headers.get(name)), url };
}

/**
 * Where a listing starts: the first page of `query` (which may hold a cursor or `starting_after`),
 * or a page the service offered (`pageUrl`, its next link or any URL of the list on its origin).
 */
export type ListStart = { query: ReportsQuery } | { pageUrl: string };

function pathOf(url: URL): string {
  return url.pathname.replace(/\/$/, '');
}

/** The same page: the same path and the same query parameters, in any order. */
function samePage(one: URL, other: URL): boolean {
  const sorted = (url: URL) =>
    [...url.searchParams]
      .map(([name, value]) => `${name}=${value}`)
      .sort()
      .join('&');
  return pathOf(one) === pathOf(other) && sorted(one) === sorted(other);
}

/**
 * The query string of a page URL the user gives (an absolute URL, a path or a query, relative to
 * the list): only of the list's own path on the base URL's origin, so that no URL sends the key
 * elsewhere.
 */
function pageUrlSearch(baseUrl: URL, given: string): string {
  const list = new URL(`${baseUrl.href.replace(/\/$/, '')}/v1/reports`);
  let url: URL | undefined;
  try {
    if (/^(https?:\/\/|\/|\?)/i.test(given)) url = new URL(given, list);
  } catch {
    url = undefined;
  }
  if (!url) {
    throw new SvcError(
      'usage',
      'invalid_page_url',
      `--page-url ${given} is not a URL, a path or a query`,
      'pass the next page as svc printed it, like /v1/reports?cursor=…',
    );
  }
  if (url.origin !== list.origin) {
    throw new SvcError(
      'usage',
      'page_url_elsewhere',
      `--page-url is on ${url.origin}, not on ${list.origin} where the API is: svc sends the key only there`,
      'pass a page of the list at the base URL (a path such as /v1/reports?page=2 is enough), or change --base-url',
    );
  }
  if (pathOf(url) !== pathOf(list)) {
    throw new SvcError('usage', 'page_url_elsewhere', `--page-url is at ${url.pathname}, not at the list ${list.pathname}`, 'pass a page of the report list');
  }
  return url.search;
}

/**
 * Refuses a page that shows the service did not take where the listing starts, instead of showing
 * the first page as if it were the next: the page holds the report `starting_after` names, or the
 * page after it is the page itself.
 */
function assertStartTaken(page: ReportPage, start: string): void {
  const after = page.url.searchParams.get('starting_after');
  const ignored =
    after !== null && page.reports.some((report) => report.id === after)
      ? `the page holds ${after}, the report the list was to start after`
      : page.next.kind === 'next' && samePage(page.next.url, page.url)
        ? 'the page after it is the page itself'
        : undefined;
  if (ignored) {
    throw new SvcError(
      'server',
      'start_ignored',
      `GET /v1/reports answered a page that does not start at ${start}: ${ignored}, so the service ignored it (no page of the list was skipped)`,
      'page by what the service offers: `svc reports list` says which flag to pass for the next page, and --all follows it',
    );
  }
}

/** What names the start of a listing, in words. */
function startNamed(start: ListStart): string | undefined {
  if ('pageUrl' in start) return `--page-url ${start.pageUrl}`;
  if (start.query.cursor !== undefined) return `--cursor ${start.query.cursor}`;
  if (start.query.starting_after !== undefined) return `--starting-after ${start.query.starting_after}`;
  return undefined;
}

async function readStart(client: ApiClient, baseUrl: URL, start: ListStart): Promise<ReportPage> {
  const page = await readPage(client, 'pageUrl' in start ? { search: pageUrlSearch(baseUrl, start.pageUrl) } : { query: start.query });
  const named = startNamed(start);
  if (named !== undefined) assertStartTaken(page, named);
  return page;
}

/** One page of reports; `query` holds only the parameters the user asked for. */
export function listReports(client: ApiClient, query: ReportsQuery): Promise<ReportPage> {
  return readPage(client, { query });
}

/**
 * The page where a listing starts: the first page of the query (which holds only the parameters
 * the user asked for), or the page the start names, refused where the service ignored the start.
 */
export async function listReportsFrom(client: ApiClient, baseUrl: URL, start: ListStart): Promise<ReportPage> {
  const page = await readStart(client, baseUrl, start);
  // A next page that is this one leads nowhere.
  return page.next.kind === 'next' && samePage(page.next.url, page.url) ? { ...page, next: { kind: 'unknown' } } : page;
}

/**
 * Every report from the start on, following the next page each answer offers on the list's
 * own path, at most `maxPages` pages (see readListing); `stopped` says why paging stopped before the end.
 */
export async function listAllReports(
  client: ApiClient,
  baseUrl: URL,
  start: ListStart,
  maxPages = MAX_PAGES,
): Promise<{ reports: ReportAnswer[]; stopped: PagingStop | undefined }> {
  let listPath: string | undefined;
  const { items, stopped } = await readListing<ReportAnswer>(
    async (at) => {
      const page = at === undefined ? await readStart(client, baseUrl, start) : await readPage(client, { search: new URL(at).search });
      listPath ??= pathOf(page.url);
      return { items: page.reports, at: page.url.href, next: listingNext(page.next, listPath) };
    },
    (report) => report.id,
    maxPages,
  );
  return { reports: items, stopped };
}

function listingNext(next: NextPage, listPath: string): ListingPage<ReportAnswer>['next'] {
  if (next.kind === 'unknown') return { kind: 'unknown', why: 'the answer shows no next page svc recognises' };
  if (next.kind === 'end') return { kind: 'end' };
  if (pathOf(next.url) !== listPath) return { kind: 'unknown', why: `the next page is at another path (${next.url.pathname}), which svc does not follow` };
  return { kind: 'next', at: next.url.href, how: next.how };
}

const FIRST_POLL_INTERVAL_MS = 500;
const MAX_POLL_INTERVAL_MS = 5_000;

/**
 * Polls the report until it is completed or failed (see reportOutcome), 0.5 s apart at first and
 * twice as long each time, up to 5 s. Past `timeoutMs` it throws a timedOut error: the report may
 * still finish. A status svc does not know keeps it waiting, bounded by `timeoutMs` like any other.
 */
export async function waitForReport(
  client: ApiClient,
  id: string,
  options: { timeoutMs: number; onPoll?: (report: ReportAnswer) => void; clock?: Clock },
): Promise<Identified<ReportAnswer>> {
  const clock = options.clock ?? systemClock;
  const deadline = clock.now() + options.timeoutMs;
  for (let interval = FIRST_POLL_INTERVAL_MS; ; interval = Math.min(interval * 2, MAX_POLL_INTERVAL_MS)) {
    const report = await getReport(client, id);
    options.onPoll?.(report);
    if (reportOutcome(report) !== 'unfinished') return report;
    const left = deadline - clock.now();
    if (left <= 0) {
      throw new SvcError(
        'timedOut',
        'wait_timed_out',
        `report ${id} is still ${report.status ?? 'without a status'} after ${options.timeoutMs / 1000} s`,
        `it may still finish: \`svc reports wait ${id}\` waits again, --wait-timeout sets for how long`,
      );
    }
    await clock.sleep(Math.min(interval, left));
  }
}
