import { listItems, nextPage } from '../../api/list-answer.js';
import { type KitContext, ReportUnfinished } from '../context.js';
import { sendWithKey, field } from '../requests.js';
import type { Exchange, Purpose } from '../http.js';
import { CheckFailure, CheckSkipped, Findings, SetupError, isSuccess, requestLine, shown, shownValue } from '../outcome.js';
import type { ProbeSet } from './types.js';
import { isJsonObject } from '../../core/json-object.js';

const memo = new WeakMap<KitContext, Promise<{ id: string; deleted: Exchange }>>();

/** A report made for deletion and deleted (shared by reports.delete and reports.delete-permanent). */
function deletedReport(context: KitContext): Promise<{ id: string; deleted: Exchange }> {
  let promise = memo.get(context);
  if (!promise) {
    promise = (async () => {
      const report = await context.setup.createReport('reports.delete');
      const deleted = await sendWithKey(context, 'DELETE', `/v1/reports/${report.id}`, { role: 'api', purpose: 'reports.delete' });
      if (isSuccess(deleted.status)) context.setup.deleted.add(report.id);
      return { id: report.id, deleted };
    })();
    memo.set(context, promise);
  }
  return promise;
}

/** Whether any array anywhere in `value` holds a resource with this id (the list's shape is not shown, part 4). */
function arrayHolds(value: unknown, id: string): boolean {
  if (Array.isArray(value))
    return value.some((item) => (typeof item === 'object' && item !== null && (item as { id?: unknown }).id === id) || arrayHolds(item, id));
  if (typeof value === 'object' && value !== null) return Object.values(value).some((item) => arrayHolds(item, id));
  return false;
}

/** The path of a next-page URL relative to the base URL, or undefined when it leaves it. */
function pathUnderBase(context: KitContext, url: URL): string | undefined {
  const prefix = context.client.baseUrl.pathname.replace(/\/$/, '');
  return url.origin === context.client.baseUrl.origin && url.pathname.startsWith(`${prefix}/`)
    ? `${url.pathname.slice(prefix.length)}${url.search}`
    : undefined;
}

/**
 * How many pages the kit reads of one list at most: a bound on the run's cost (the loops it also
 * guards against are caught sooner, by a page seen before or one that brings no new report).
 */
const MAX_LIST_PAGES = 1000;

/** The origins of the absolute URLs in an answer's Link header and body, other than `url`'s. */
function otherOrigins(url: URL, body: unknown, link: string | undefined): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (/^https?:\/\//i.test(value) && URL.canParse(value) && new URL(value).origin !== url.origin) found.add(new URL(value).origin);
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit);
  };
  visit(body);
  for (const match of (link ?? '').matchAll(/<([^>]*)>/g)) visit(match[1]);
  return found;
}

/** The answer without its links to `origin` (and without `links` and `_links`), for its cursors alone. */
function withoutLinks(body: unknown, origin: string): unknown {
  const strip = (value: unknown): unknown => {
    if (typeof value === 'string') return value;
    if (Array.isArray(value)) return value.map(strip);
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) {
      const elsewhere = typeof item === 'string' && /^https?:\/\//i.test(item) && URL.canParse(item) && new URL(item).origin === origin;
      if (!elsewhere) out[name] = strip(item);
    }
    return out;
  };
  const stripped = strip(body);
  if (isJsonObject(stripped)) {
    delete stripped.links;
    delete stripped._links;
  }
  return stripped;
}

type Step = { kind: 'next'; path: string; how: string } | { kind: 'end'; how: string } | { kind: 'stop'; why: string };

/**
 * The next page of a list answer the kit can follow: a next link on the implementation's base URL,
 * or, where the next link leads to another origin (the kit sends its keys nowhere else), a cursor
 * of the same answer.
 */
function nextStep(context: KitContext, page: Exchange): Step {
  const url = new URL(`${context.client.baseUrl.pathname.replace(/\/$/, '')}${page.path}`, context.client.baseUrl.origin);
  const header = (name: string) => page.headers[name];
  const next = nextPage(url, page.json, header);
  if (next.kind === 'end') return next;
  const path = next.kind === 'next' ? pathUnderBase(context, next.url) : undefined;
  if (next.kind === 'next' && path !== undefined) return { kind: 'next', path, how: next.how };
  // The origin the next link leads to: where, read from there, the answer has a next page on its own origin.
  const elsewhere =
    next.kind === 'next'
      ? next.url.origin
      : [...otherOrigins(url, page.json, page.headers.link)].find((origin) => {
          const there = nextPage(new URL(`${url.pathname}${url.search}`, origin), page.json, header);
          return there.kind === 'next' && there.url.origin === origin;
        });
  if (elsewhere === undefined) return { kind: 'stop', why: 'no paging the kit recognises' };
  const link = elsewhere === url.origin ? 'a next link outside the base URL' : `a next link to ${elsewhere}`;
  const cursor = nextPage(url, withoutLinks(page.json, elsewhere), () => undefined);
  const cursorPath = cursor.kind === 'next' ? pathUnderBase(context, cursor.url) : undefined;
  if (cursor.kind === 'next' && cursorPath !== undefined)
    return { kind: 'next', path: cursorPath, how: `${cursor.how} (beside ${link}, which the kit does not follow)` };
  return { kind: 'stop', why: `${link}, which the kit does not follow, and no cursor of the same answer it can follow` };
}

/** A list paged by the Link header ends at the page that has none (RFC 8288 leaves a last page's next link out, often the header with it). */
function linkHeaderEnds(page: Exchange, hows: Set<string>): Step | undefined {
  if (!hows.has('the Link header') || page.headers.link) return undefined;
  return { kind: 'end', how: 'the page after them has no Link header' };
}

export interface ListSearch {
  /** `unknown`: not on the pages the kit could read, and it cannot tell whether more follow. */
  state: 'found' | 'absent' | 'unknown';
  first: Exchange;
  /** Reports seen on the pages read. */
  seen: number;
  /** How the kit paged, or why it stopped, for a check's note. */
  paging: string;
  /** Why the rest could not be read: a limit the kit set itself (a bound, a loop), rather than paging it cannot follow. */
  bounded?: boolean;
}

/**
 * Whether the workspace's list holds the report: on the first page of GET /v1/reports (sent
 * without query parameters, which are not shown), or on the pages the answer leads to, up to its
 * end. The kit stops at a page it has read before, at one that brings no report it has not seen,
 * after MAX_LIST_PAGES pages, and where it cannot follow the paging: the search is then `unknown`.
 */
export async function searchList(context: KitContext, id: string, role: 'api' | 'readOnly' | 'other', purpose: Purpose): Promise<ListSearch> {
  const first = await sendWithKey(context, 'GET', '/v1/reports', { role, purpose });
  let page = first;
  const ids = new Set<string>();
  let seen = 0;
  const visited = new Set<string>(['/v1/reports']);
  const hows = new Set<string>();
  const paged = (count: number) => `${count} ${count === 1 ? 'page' : 'pages'}${hows.size > 0 ? ` by ${[...hows].join(', ')}` : ''}`;
  for (let count = 1; ; count++) {
    if (!isSuccess(page.status)) return { state: count === 1 ? 'absent' : 'unknown', first, seen, paging: `page ${count} answered ${page.status}` };
    if (arrayHolds(page.json, id)) return { state: 'found', first, seen, paging: count === 1 ? 'on the first page' : `on page ${count} (${paged(count - 1)})` };
    const listed = listItems(page.json);
    const items = listed ?? [];
    seen += items.length;
    const itemIds = items.map((item) => (item as { id?: unknown } | null)?.id).filter((itemId) => typeof itemId === 'string' || typeof itemId === 'number');
    const before = ids.size;
    for (const itemId of itemIds) ids.add(String(itemId));
    if (listed?.length === 0) return { state: 'absent', first, seen, paging: `${paged(count)}, the last one empty` };
    if (count > 1 && itemIds.length > 0 && ids.size === before)
      return { state: 'unknown', first, seen, paging: `${paged(count)}, page ${count} bringing no report it had not seen`, bounded: true };
    const step = linkHeaderEnds(page, hows) ?? nextStep(context, page);
    if (step.kind === 'end') return { state: 'absent', first, seen, paging: `${paged(count)} (${step.how})` };
    if (step.kind === 'stop') return { state: 'unknown', first, seen, paging: `${paged(count)}, then ${step.why}` };
    if (visited.has(step.path)) return { state: 'unknown', first, seen, paging: `${paged(count)}, then a next page it had read before`, bounded: true };
    if (count >= MAX_LIST_PAGES)
      return { state: 'unknown', first, seen, paging: `${paged(count)}, the most the kit reads of one list, and more follow`, bounded: true };
    hows.add(step.how);
    visited.add(step.path);
    page = await sendWithKey(context, 'GET', step.path, { role, purpose });
  }
}

/** Throws why a check cannot judge what the list held: the kit did not read all of it. */
export function unreadList(search: ListSearch, whose: string): never {
  const message = `${whose} list was not read to its end (${search.seen} reports read: ${search.paging}), so the kit cannot tell what the rest holds`;
  if (search.bounded) throw new SetupError(message);
  throw new CheckSkipped(message);
}

/**
 * Whether an answer still gives the report: a success naming it with report fields. (What a read
 * of a deleted report answers is not shown; a tombstone such as {id, deleted: true} is no report.)
 */
export function stillThere(exchange: Exchange, id: string): boolean {
  if (!isSuccess(exchange.status)) return false;
  const body = exchange.json;
  if (typeof body !== 'object' || body === null) return false;
  const record = body as Record<string, unknown>;
  return record.id === id && ['applicant_id', 'destination', 'status', 'risk_score'].some((name) => record[name] !== undefined);
}

function breakdown(exchange: Exchange): Record<string, unknown> {
  const criteria = field(exchange, 'criteria');
  const sorted = Array.isArray(criteria)
    ? (criteria as Array<Record<string, unknown> | null>)
        .map((item) => ({ key: item?.key, score: item?.score, weight: item?.weight }))
        .sort((a, b) => String(a.key).localeCompare(String(b.key)))
    : criteria;
  return {
    risk_score: field(exchange, 'risk_score'),
    score_band: field(exchange, 'score_band'),
    criteria: sorted,
    recommendations: field(exchange, 'recommendations'),
  };
}

export const reportProbes: ProbeSet = {
  probes: {
    'reports.completes': async (context) => {
      try {
        const report = await context.setup.completedReport();
        return `${report.id} completed`;
      } catch (error) {
        if (error instanceof ReportUnfinished)
          throw new CheckFailure([{ expected: 'the report completed', got: error.message, request: 'GET /v1/reports/:id, polled' }]);
        throw error;
      }
    },

    'reports.criteria-weights': async (context) => {
      const { finished } = await context.setup.completedReport();
      const findings = new Findings();
      const criteria = field(finished, 'criteria');
      if (findings.expect(Array.isArray(criteria) && criteria.length > 0, 'criteria as a non-empty array', shownValue(criteria), finished)) {
        for (const [index, criterion] of (criteria as unknown[]).entries()) {
          const weight = (criterion as { weight?: unknown })?.weight;
          findings.expect(
            typeof weight === 'number' && weight >= 0 && weight <= 1,
            `criteria[${index}].weight as a fraction of 1 (0 to 1)`,
            shownValue(weight),
            finished,
          );
        }
      }
      findings.done();
    },

    'reports.list': async (context) => {
      const report = await context.setup.firstReport();
      const search = await searchList(context, report.id, 'api', 'reports.list');
      const findings = new Findings();
      if (findings.expect(isSuccess(search.first.status), 'a 2xx answer', shown(search.first), search.first)) {
        if (search.state === 'unknown') unreadList(search, `the kit's report ${report.id} is not among the reports read, and the workspace's`);
        findings.expect(
          search.state === 'found',
          `the list to hold the kit's report ${report.id}`,
          `${search.seen} reports without it (${search.paging})`,
          search.first,
        );
      }
      findings.done();
      return `${report.id} found ${search.paging}`;
    },

    'reports.delete': async (context) => {
      const { deleted } = await deletedReport(context);
      const findings = new Findings();
      findings.expect(isSuccess(deleted.status), 'a 2xx answer', shown(deleted), deleted);
      findings.done();
    },

    'reports.delete-permanent': async (context) => {
      const { id, deleted } = await deletedReport(context);
      const findings = new Findings();
      if (!findings.expect(isSuccess(deleted.status), 'the DELETE to succeed first', shown(deleted), deleted)) return findings.done();
      const read = await sendWithKey(context, 'GET', `/v1/reports/${id}`, { role: 'api', purpose: 'reports.delete-permanent' });
      findings.expect(!stillThere(read, id), 'the report gone: an error answer (or one without the report)', shown(read), read);
      const search = await searchList(context, id, 'api', 'reports.delete-permanent');
      findings.expect(search.state !== 'found', `the list without ${id}`, `the deleted report in the list (${search.paging})`, search.first);
      // A deletion that an analysis finishing later undoes is not permanent: read it once more after one has had time to finish.
      await context.setup.twinReport().catch(() => undefined);
      const later = await sendWithKey(context, 'GET', `/v1/reports/${id}`, { role: 'api', purpose: 'reports.delete-permanent' });
      findings.expect(!stillThere(later, id), 'the report still gone later in the run', shown(later), later);
      findings.done();
      // Gone from the pages read is no evidence that it is gone from the rest.
      if (search.state === 'unknown') unreadList(search, `${id} is gone from its reads, but the workspace's`);
      return `${id} gone from its reads and from the list (${search.paging})`;
    },

    'determinism.test-key': async (context) => {
      const one = await context.setup.completedReport();
      const two = await context.setup.twinReport();
      const findings = new Findings();
      const a = breakdown(one.finished);
      const b = breakdown(two.finished);
      for (const name of Object.keys(a)) {
        const same = JSON.stringify(a[name]) === JSON.stringify(b[name]);
        if (!same)
          findings.add({
            expected: `the same ${name} for ${one.id} and ${two.id} (same input, svc_test_ key)`,
            got: `${shownValue(a[name])} and ${shownValue(b[name])}`,
            request: requestLine(two.finished),
          });
      }
      findings.done();
      return `${one.id} and ${two.id} agree`;
    },

    'keys.id-prefix': async (context) => {
      const key = await context.setup.revocationKey();
      if (!key.id.startsWith('key_')) {
        throw new CheckFailure([
          {
            expected: 'a key id with the prefix key_',
            got: JSON.stringify(key.id),
            request: key.created ? requestLine(key.created) : 'the id given with --revocable-key-id',
          },
        ]);
      }
      return key.id;
    },
  },
};
