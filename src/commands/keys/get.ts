import { Args } from '@oclif/core';
import { AdminCommand } from '../../cli/admin-command.js';
import { assertStated, STATED } from '../../spec/stated.js';
import type { Key } from '../../api/types.js';
import { readKey } from '../../services/keys.js';
import { renderKey } from '../../ui/keys.js';

/** What `--json` prints. */
export type JsonResult = Key;

export default class KeysGet extends AdminCommand<JsonResult> {
  static override summary = 'Show a key: scope, status, and when and from where it was last used (admin key)';
  static override examples = ['<%= config.bin %> keys get key_123', '<%= config.bin %> keys get key_123 --json'];

  static override args = {
    id: Args.string({ description: 'Key id (key_…)', required: true }),
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(KeysGet);
    assertStated([['id', args.id, STATED.keyId]]);
    const { client } = await this.connectAdmin(flags);
    const key = await readKey(client, args.id);
    this.log(renderKey(key, this.timeView(flags.utc), this.io.stdout));
    return key;
  }
}
