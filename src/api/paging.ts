/** The most pages svc reads of one listing unless told otherwise (`--max-pages`). */
export const MAX_PAGES = 1000;

/** One page of a listing: its items, and where the next page is. */
export interface ListingPage<T> {
  items: T[];
  /** Where this page was read (its URL), when a next page may name it. */
  at?: string;
  /** `at` names the next page (its URL, or its cursor) and tells a page already read. */
  next: { kind: 'next'; at: string; how: string } | { kind: 'end' } | { kind: 'unknown'; why: string };
}

/**
 * Why a listing stopped before its end, so that more items may follow: no next page svc can follow
 * (`unknown_paging`), a page that brought nothing not seen before (`repeated_page`), a next page
 * already read (`repeated_cursor`), or the most pages allowed (`page_limit`).
 */
export interface PagingStop {
  reason: 'unknown_paging' | 'repeated_page' | 'repeated_cursor' | 'page_limit';
  message: string;
}

/**
 * Every item of a listing, read page after page: `read(undefined)` reads the first page and
 * `read(at)` the next page at `at`. Stops at the end, or before it (`stopped`): where svc cannot
 * follow the next page, at a page that brings nothing not seen before, at a next page already
 * read, and after `maxPages` pages. An item whose id was seen before is kept once.
 */
export async function readListing<T>(
  read: (at: string | undefined) => Promise<ListingPage<T>>,
  idOf: (item: T) => unknown,
  maxPages: number,
): Promise<{ items: T[]; stopped: PagingStop | undefined }> {
  const items: T[] = [];
  const seenIds = new Set<unknown>();
  const readAt = new Set<string>();
  let at: string | undefined;
  for (let count = 1; ; count++) {
    const page = await read(at);
    if (page.at !== undefined) readAt.add(page.at);
    const fresh = page.items.filter((item) => {
      const id = idOf(item);
      return id === undefined || id === null || !seenIds.has(id);
    });
    items.push(...fresh);
    for (const item of fresh) seenIds.add(idOf(item));
    const { next } = page;
    const stop = (reason: PagingStop['reason'], message: string) => ({ items, stopped: { reason, message } });
    if (next.kind === 'end') return { items, stopped: undefined };
    if (next.kind === 'unknown') return stop('unknown_paging', next.why);
    if (count > 1 && fresh.length === 0) return stop('repeated_page', `page ${count} brought nothing not seen before (next page by ${next.how})`);
    if (readAt.has(next.at)) return stop('repeated_cursor', `page ${count} leads to a page already read (by ${next.how})`);
    if (count >= maxPages) return stop('page_limit', `${maxPages} pages read, the most allowed`);
    readAt.add(next.at);
    at = next.at;
  }
}
