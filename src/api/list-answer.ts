/**
 * Reading a list answer of an implementation svc did not write. The response shape and the
 * paging of GET /v1/reports are not shown (spec part 4), so the items and the next page are found
 * wherever the common conventions put them: a bare array, `{data: […]}` (Stripe, JSON:API), or
 * another object holding one array of resources; a `Link: <…>; rel="next"` header (RFC 8288),
 * `links.next` (JSON:API), `_links.next.href` (HAL), a `next` URL, `has_more` with the last id
 * (Stripe), a `next_cursor` or a `next_page_token`, page numbers.
 */
import { isJsonObject, type JsonObject } from '../core/json-object.js';

function isResource(value: unknown): value is JsonObject {
  return isJsonObject(value) && (typeof value.id === 'string' || typeof value.id === 'number');
}

/** A JSON:API resource `{type, id, attributes}` flattened to `{id, …attributes}`; any other item as it is. */
export function resourceOf(item: unknown): unknown {
  if (!isResource(item) || !isJsonObject(item.attributes)) return item;
  return { id: item.id, ...item.attributes };
}

const MAX_DEPTH = 3;

function itemsIn(body: unknown, depth: number): unknown[] | undefined {
  if (Array.isArray(body)) return body as unknown[];
  if (!isJsonObject(body) || depth > MAX_DEPTH) return undefined;
  if (Array.isArray(body.data)) return body.data as unknown[];
  const arrays = Object.values(body).filter(Array.isArray);
  const ofResources = arrays.filter((array) => array.length > 0 && array.every(isResource));
  if (ofResources.length === 1) return ofResources[0];
  if (arrays.length === 1) return arrays[0];
  if (arrays.length > 1) return undefined;
  const nested = Object.values(body)
    .filter(isJsonObject)
    .map((value) => itemsIn(value, depth + 1))
    .filter((items) => items !== undefined);
  return nested.length === 1 ? nested[0] : undefined;
}

/**
 * The items of a list answer, JSON:API resources flattened; undefined when the answer holds no
 * array, or several that could each be the list.
 */
export function listItems(body: unknown): unknown[] | undefined {
  return itemsIn(body, 0)?.map(resourceOf);
}

/** Where the next page is: a URL to GET, the end of the list, or no paging svc recognises. */
export type NextPage = { kind: 'next'; url: URL; how: string } | { kind: 'end'; how: string } | { kind: 'unknown' };

/** The target of the first link of relation `rel` in a Link header (RFC 8288), or null when it has none. */
function linkHeaderTarget(value: string, rel: string): string | null {
  const relation = new RegExp(`;\\s*rel\\s*=\\s*"?([^";]*\\s)?${rel}(\\s[^";]*)?"?\\s*(;|$)`, 'i');
  for (const link of value.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(link);
    if (match && relation.test(match[2]!)) return match[1]!;
  }
  return null;
}

/** Relations that show a list is paged: beside them, a missing `next` marks the last page. */
const PAGING_RELATIONS = ['first', 'last', 'prev', 'previous'];

function field(body: JsonObject, path: string): unknown {
  return path.split('.').reduce<unknown>((value, name) => (isJsonObject(value) ? value[name] : undefined), body);
}

const NEXT_LINKS = [
  'links.next',
  'links.next.href',
  '_links.next.href',
  'next',
  'next_url',
  'nextUrl',
  'next_page_url',
  'paging.next',
  'pagination.next',
  'meta.next',
];
const CURSORS: Array<[string, string]> = [
  ['next_cursor', 'cursor'],
  ['nextCursor', 'cursor'],
  ['meta.next_cursor', 'cursor'],
  ['pagination.next_cursor', 'cursor'],
  ['cursor.next', 'cursor'],
  ['next_page_token', 'page_token'],
  ['nextPageToken', 'pageToken'],
];
/** A page number and the number of pages; the next page is asked for with `page=`. */
const PAGE_NUMBERS: Array<[string, string]> = [
  ['page', 'total_pages'],
  ['meta.page', 'meta.total_pages'],
  ['meta.current_page', 'meta.last_page'],
  ['pagination.page', 'pagination.total_pages'],
];

function withQuery(url: URL, name: string, value: string): URL {
  const next = new URL(url);
  next.searchParams.set(name, value);
  return next;
}

/**
 * The next page of a list answer to `url`. A next link (an absolute URL, a path or a query) is
 * followed only on the origin of `url`, so that an answer cannot send the key elsewhere; one to
 * another origin, or a value that is no link, is `unknown`.
 */
export function nextPage(url: URL, body: unknown, header: (name: string) => string | null | undefined): NextPage {
  const sameOrigin = (target: string, how: string): NextPage => {
    if (!/^(https?:\/\/|\/|\?)/i.test(target)) return { kind: 'unknown' };
    let next: URL;
    try {
      next = new URL(target, url);
    } catch {
      return { kind: 'unknown' };
    }
    return next.origin === url.origin ? { kind: 'next', url: next, how } : { kind: 'unknown' };
  };
  const link = header('link');
  if (link) {
    const next = linkHeaderTarget(link, 'next');
    if (next !== null) return sameOrigin(next, 'the Link header');
    if (PAGING_RELATIONS.some((rel) => linkHeaderTarget(link, rel) !== null)) return { kind: 'end', how: 'the Link header has no rel="next"' };
  }
  if (!isJsonObject(body)) return { kind: 'unknown' };
  for (const path of NEXT_LINKS) {
    const value = field(body, path);
    if (typeof value === 'string' && value !== '') return sameOrigin(value, path);
    if (value === null || value === '') return { kind: 'end', how: `${path} is empty` };
  }
  for (const name of ['links', '_links']) {
    const links = body[name];
    // JSON:API and HAL leave the next link out on the last page.
    if (isJsonObject(links) && PAGING_RELATIONS.some((rel) => rel in links)) return { kind: 'end', how: `${name} has no next` };
  }
  // A cursor the answer names is followed before has_more, whose next page is only inferred from the last id.
  for (const [path, parameter] of CURSORS) {
    const value = field(body, path);
    if (typeof value === 'string' && value !== '') return { kind: 'next', url: withQuery(url, parameter, value), how: path };
  }
  const hasMore = body.has_more ?? body.hasMore;
  if (hasMore === false) return { kind: 'end', how: 'has_more is false' };
  if (hasMore === true) {
    const last = listItems(body)?.at(-1);
    return isResource(last)
      ? { kind: 'next', url: withQuery(url, 'starting_after', String(last.id)), how: 'has_more, after the last id' }
      : { kind: 'unknown' };
  }
  for (const [path] of CURSORS) {
    const value = field(body, path);
    if (value === null || value === '') return { kind: 'end', how: `${path} is empty` };
  }
  for (const [pagePath, totalPath] of PAGE_NUMBERS) {
    const page = field(body, pagePath);
    const total = field(body, totalPath);
    if (Number.isInteger(page) && Number.isInteger(total)) {
      return (page as number) < (total as number)
        ? { kind: 'next', url: withQuery(url, 'page', String((page as number) + 1)), how: `${pagePath} of ${totalPath}` }
        : { kind: 'end', how: `${pagePath} is the last` };
    }
  }
  return { kind: 'unknown' };
}
