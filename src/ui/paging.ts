import type { PagingStop } from '../api/paging.js';

/** The warning of a listing `--all` cut short. */
export function pagingStopWarning(stopped: PagingStop, items: string): string {
  const flag = stopped.reason === 'page_limit' ? ' (--max-pages)' : '';
  return `stopped paging: ${stopped.message}${flag}, so more ${items} may follow`;
}
