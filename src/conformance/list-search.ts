/**
 * Looking for one report in the workspace's list, GET /v1/reports, whose shape and paging are not
 * shown (part 4): found, shown absent, or not known. The kit's cost is bounded by its own work, not
 * by the workspace's history: it asks for larger pages where an answer shows the parameter that sets
 * their size, stops where a list seen to be newest first has passed the report's creation, and
 * otherwise stops at a bound and says so.
 */
import { listItems, nextPage } from '../api/list-answer.js';
import { isJsonObject } from '../core/json-object.js';
import { parseTimestamp } from '../spec/timestamp.js';
import type { KitContext } from './context.js';
import type { Exchange, Purpose } from './http.js';
import { CheckSkipped, isSuccess, SetupError } from './outcome.js';
import { field, sendWithKey } from './requests.js';

/**
 * How many pages the kit reads of one list at most: a bound on the run's cost where nothing else
 * ends the search (the loops it also guards against are caught sooner, by a page seen before or one
 * that brings no new report).
 */
export const MAX_LIST_PAGES = 100;

/** The page size the kit asks for where an answer shows the parameter: the most the common conventions take (Stripe's `limit`, GitHub's `per_page`). */
const LARGEST_PAGE = 100;

/**
 * An item counts as created before the report only a whole second before it: timestamps of
 * one-second precision show a report and one made in the same second alike.
 */
const PRECISION_MS = 1_000;

/** The page-size parameters the kit recognises, in a next link's query. */
const SIZE_PARAMETERS = ['limit', 'per_page', 'page_size', 'page[size]'];
/** Where an answer may echo the page size it used, by the parameter's name. */
const SIZE_ECHOES = ['limit', 'per_page', 'page_size'].flatMap((name) => [name, `meta.${name}`, `pagination.${name}`, `paging.${name}`]);

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

/**
 * The parameter that sets the page's size, as the answer shows it takes one: carried by its next
 * link (`limit=`, `per_page=`, `page_size=`, `page[size]=`) or its size echoed in the body (`limit`,
 * `per_page`, `page_size`, at its top or in `meta`, `pagination` or `paging`). None is assumed: the
 * specification shows no query parameter of the list.
 */
function shownPageSize(page: Exchange, step: Step): { name: string; size: number } | undefined {
  if (step.kind === 'next') {
    const query = new URL(step.path, 'https://list.invalid').searchParams;
    for (const name of SIZE_PARAMETERS) {
      const size = Number(query.get(name) ?? Number.NaN);
      if (Number.isInteger(size) && size > 0) return { name, size };
    }
  }
  if (!isJsonObject(page.json)) return undefined;
  for (const path of SIZE_ECHOES) {
    const size = path.split('.').reduce<unknown>((value, name) => (isJsonObject(value) ? value[name] : undefined), page.json);
    if (Number.isInteger(size) && (size as number) > 0) return { name: path.split('.').at(-1)!, size: size as number };
  }
  return undefined;
}

/**
 * What the pages read show of the list's order by creation: newest first once an item was created
 * before the one listed above it and none after (items already seen, which a list shifts down as
 * reports are made meanwhile, are not looked at again); such a list has passed where the report
 * would be once it shows an item created a whole second before it.
 */
class CreationOrder {
  private last: number | undefined;
  private descending = false;
  /** Where an item was created after the one listed above it: the list is not newest first. */
  private risingOn: number | undefined;
  /** The first page with an item created a whole second before the report. */
  private olderOn: number | undefined;
  private dated = 0;

  constructor(private readonly reportCreated: number) {}

  read(items: unknown[], page: number): void {
    for (const item of items) {
      const at = isJsonObject(item) && typeof item.created_at === 'string' ? parseTimestamp(item.created_at) : Number.NaN;
      if (Number.isNaN(at)) continue;
      this.dated++;
      if (this.last !== undefined && at < this.last) this.descending = true;
      if (this.last !== undefined && at > this.last) this.risingOn ??= page;
      this.last = at;
      if (this.olderOn === undefined && at <= this.reportCreated - PRECISION_MS) this.olderOn = page;
    }
  }

  /** The page on which a newest-first list passed the report's creation; undefined while it has not. */
  get passedOn(): number | undefined {
    return this.descending && this.risingOn === undefined ? this.olderOn : undefined;
  }

  /** Why the pages read did not end the search: what a newest-first list passing the report would have. */
  get whyNotPassed(): string {
    if (Number.isNaN(this.reportCreated)) return "the report's creation answer gave no created_at to stop at";
    if (this.dated === 0) return 'its reports show no created_at';
    if (this.risingOn !== undefined) return `it is not newest first (page ${this.risingOn} lists a report created after the one above it)`;
    if (!this.descending) return 'its reports do not show it newest first';
    return 'no report on the pages read was created before it';
  }
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

/** The report looked for: its id, and the answer to its creation (whose created_at tells where a newest-first list holds it). */
export interface ListedReport {
  id: string;
  created: Exchange;
}

/**
 * Whether the workspace's list holds the report: on the first page of GET /v1/reports (sent
 * without query parameters, which are not shown), or on the pages the answer leads to. The search
 * ends where the report is found, at the list's end, and where a list seen to be newest first has
 * passed the report's creation (absent). Where the first page does not end it and shows a parameter
 * that sets the page's size, the first page is read again with LARGEST_PAGE. The kit stops at a page
 * it has read before, at one that brings no report it has not seen, after MAX_LIST_PAGES pages, and
 * where it cannot follow the paging: the search is then `unknown`.
 */
export function searchList(context: KitContext, report: ListedReport, role: 'api' | 'readOnly' | 'other', purpose: Purpose): Promise<ListSearch> {
  const createdAt = field(report.created, 'created_at');
  const created = typeof createdAt === 'string' ? parseTimestamp(createdAt) : Number.NaN;
  return searchListFor(context, { name: report.id, holds: (page) => arrayHolds(page, report.id), created }, role, purpose);
}

/** What a search of the list looks for: a name for notes, whether a page's answer holds it, and when it was made (NaN: not known). */
export interface ListTarget {
  name: string;
  holds(page: unknown): boolean;
  /** Milliseconds since the epoch: a list newest first that has passed it holds nothing made since. */
  created: number;
}

/** As searchList, for whatever `target.holds` finds on a page, made no earlier than `target.created`. */
export async function searchListFor(context: KitContext, target: ListTarget, role: 'api' | 'readOnly' | 'other', purpose: Purpose): Promise<ListSearch> {
  const id = target.name;
  const first = await sendWithKey(context, 'GET', '/v1/reports', { role, purpose });
  const order = new CreationOrder(target.created);
  let page = first;
  const ids = new Set<string>();
  let seen = 0;
  const visited = new Set<string>(['/v1/reports']);
  const hows = new Set<string>();
  let sized = '';
  let resized = false;
  const paged = (count: number) => `${count} ${count === 1 ? 'page' : 'pages'}${sized}${hows.size > 0 ? ` by ${[...hows].join(', ')}` : ''}`;
  for (let count = 1; ;) {
    if (!isSuccess(page.status)) return { state: count === 1 ? 'absent' : 'unknown', first, seen, paging: `page ${count} answered ${page.status}` };
    if (target.holds(page.json))
      return { state: 'found', first, seen, paging: count === 1 ? `on the first page${sized}` : `on page ${count} (${paged(count - 1)})` };
    const listed = listItems(page.json);
    const items = listed ?? [];
    const idOf = (item: unknown) => (item as { id?: unknown } | null)?.id;
    const fresh = items.filter((item) => {
      const itemId = idOf(item);
      return (typeof itemId !== 'string' && typeof itemId !== 'number') || !ids.has(String(itemId));
    });
    seen += fresh.length;
    order.read(fresh, count);
    const itemIds = items.map(idOf).filter((itemId) => typeof itemId === 'string' || typeof itemId === 'number');
    const before = ids.size;
    for (const itemId of itemIds) ids.add(String(itemId));
    if (listed?.length === 0) return { state: 'absent', first, seen, paging: `${paged(count)}, the last one empty` };
    if (count > 1 && itemIds.length > 0 && ids.size === before)
      return { state: 'unknown', first, seen, paging: `${paged(count)}, page ${count} bringing no report it had not seen`, bounded: true };
    const passedOn = order.passedOn;
    if (passedOn !== undefined)
      return { state: 'absent', first, seen, paging: `passed reports created before ${id} on page ${passedOn} of a list newest first (${paged(count)})` };
    const step = linkHeaderEnds(page, hows) ?? nextStep(context, page);
    if (step.kind === 'end') return { state: 'absent', first, seen, paging: `${paged(count)} (${step.how})` };
    const size = count === 1 && !resized ? shownPageSize(page, step) : undefined;
    if (size && size.size < LARGEST_PAGE) {
      resized = true;
      const path = `/v1/reports?${new URLSearchParams({ [size.name]: String(LARGEST_PAGE) }).toString()}`;
      const larger = await sendWithKey(context, 'GET', path, { role, purpose });
      if (isSuccess(larger.status) && listItems(larger.json) !== undefined) {
        sized = ` of up to ${LARGEST_PAGE} (${size.name}=${LARGEST_PAGE}, where the first answer showed ${size.name} ${size.size})`;
        visited.add(path);
        // The first page again, larger: looked at as the first, and paged on from.
        page = larger;
        continue;
      }
      sized = ` (asked for ${LARGEST_PAGE} a page with ${size.name}, which answered ${larger.status})`;
    }
    if (step.kind === 'stop') return { state: 'unknown', first, seen, paging: `${paged(count)}, then ${step.why}` };
    if (visited.has(step.path)) return { state: 'unknown', first, seen, paging: `${paged(count)}, then a next page it had read before`, bounded: true };
    if (count >= MAX_LIST_PAGES)
      return {
        state: 'unknown',
        first,
        seen,
        paging: `${paged(count)}, the most the kit reads of one list, and more follow; it could not stop sooner: ${order.whyNotPassed}`,
        bounded: true,
      };
    hows.add(step.how);
    visited.add(step.path);
    page = await sendWithKey(context, 'GET', step.path, { role, purpose });
    count++;
  }
}

/** Throws why a check cannot judge what the list held: the kit did not read all of it. */
export function unreadList(search: ListSearch, whose: string): never {
  const message = `${whose} list was not read to its end (${search.seen} reports read: ${search.paging}), so the kit cannot tell what the rest holds`;
  if (search.bounded) throw new SetupError(message);
  throw new CheckSkipped(message);
}
