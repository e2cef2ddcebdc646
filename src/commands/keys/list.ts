import { Flags } from '@oclif/core';
import { AdminCommand } from '../../cli/admin-command.js';
import type { PagingStop } from '../../api/paging.js';
import { assertStated, STATED } from '../../spec/stated.js';
import type { Key } from '../../api/types.js';
import { maxPagesFlag } from '../../flags/max-pages.js';
import { listAllKeys, listKeys } from '../../services/keys.js';
import { renderKeyRows } from '../../ui/keys.js';
import { pagingStopWarning } from '../../ui/paging.js';
import { terminalText } from '../../ui/terminal-text.js';

/** `--json`: the keys read, and whether more follow; with --all, null and `stopped` when paging stopped before the end. */
interface KeyListing {
  object: 'list';
  data: Key[];
  has_more: boolean | null;
  stopped?: PagingStop;
}

/** What `--json` prints. */
export type JsonResult = KeyListing;

export default class KeysList extends AdminCommand<JsonResult> {
  static override summary = 'List the keys of the workspace: last use, read-only, IP lock (admin key)';
  static override examples = ['<%= config.bin %> keys list', '<%= config.bin %> keys list --all --json'];

  static override flags = {
    limit: Flags.integer({ description: 'Keys per page', min: 1, max: 100, default: 20 }),
    'starting-after': Flags.string({ description: 'Start after this key id, key_… (the cursor of the previous page)' }),
    all: Flags.boolean({ description: 'Follow the pages to the end' }),
    'max-pages': maxPagesFlag,
  };

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(KeysList);
    assertStated([['--starting-after', flags['starting-after'], STATED.keyId]]);
    const { client } = await this.connectAdmin(flags);
    let list: KeyListing;
    if (flags.all) {
      const { keys, stopped } = await listAllKeys(client, flags['max-pages']);
      list = { object: 'list', data: keys, has_more: stopped ? null : false, ...(stopped && { stopped }) };
    } else {
      list = await listKeys(client, { limit: flags.limit, starting_after: flags['starting-after'] });
    }
    if (list.data.length === 0) this.note('No keys.');
    else this.log(renderKeyRows(list.data, this.timeView(flags.utc), this.io.stdout));
    if (list.has_more) this.note(`More keys follow: --starting-after ${terminalText(String(list.data.at(-1)?.id))}, or --all.`);
    if (list.stopped) this.warning(pagingStopWarning(list.stopped, 'keys'));
    return list;
  }
}
