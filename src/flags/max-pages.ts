import { Flags } from '@oclif/core';
import { MAX_PAGES } from '../api/paging.js';

/** `--max-pages` of a list command's `--all`; the default is left to the command, so that the flag alone is refused without --all. */
export const maxPagesFlag = Flags.integer({
  description: `With --all, the most pages to read (default ${MAX_PAGES}); past it the listing is cut short, and says so`,
  min: 1,
  dependsOn: ['all'],
});
