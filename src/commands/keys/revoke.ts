import { Args, Flags } from '@oclif/core';
import { AdminCommand } from '../../cli/admin-command.js';
import type { ApiClient } from '../../api/client.js';
import { assertStated, STATED } from '../../spec/stated.js';
import type { Answered, Key, KeyRevocation } from '../../api/types.js';
import { redactKey } from '../../core/redaction.js';
import { ApiError, SvcError } from '../../core/errors.js';
import { getKey, revokeKey } from '../../services/keys.js';
import { confirmOrRefuse } from '../../ui/confirm.js';
import { lastUse } from '../../ui/keys.js';
import { terminalText } from '../../ui/terminal-text.js';

/** Statuses of a GET /v1/keys/{id} that the service does not offer: key reads are not shown by the spec. */
const NO_KEY_READS = new Set([404, 405, 501]);

/** What `--json` prints. */
export type JsonResult = Answered<KeyRevocation>;

export default class KeysRevoke extends AdminCommand<JsonResult> {
  static override summary = 'Revoke a key, with immediate effect (admin key)';
  static override description = `Anything still using the key gets 401 invalid_key from then on; \`svc keys rotate\` replaces a key in use without downtime. The admin key doing the revoking cannot revoke itself.
Any success status of DELETE /v1/keys/{id} is taken (200, 202, 204). With --json, the answer as it came, with "id" and "revoked": true added where it leaves them out. A service that offers no GET /v1/keys/{id} (key reads are not in the specification) gets the revocation without the checks that need the key's details.`;

  static override examples = ['<%= config.bin %> keys revoke key_123', '<%= config.bin %> keys revoke key_123 --yes --json'];

  static override mutating = true;

  static override args = {
    id: Args.string({ description: 'Key id (key_…)', required: true }),
  };

  static override flags = {
    yes: Flags.boolean({ char: 'y', description: 'Revoke without asking (required when not on a terminal)' }),
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(KeysRevoke);
    assertStated([['id', args.id, STATED.keyId]]);
    const { client, connection } = await this.connectAdmin(flags);
    const key = await this.details(client, args.id);
    if (key?.environment === 'admin' && connection.adminKey && key.prefix_hint === redactKey(connection.adminKey.value)) {
      throw new SvcError(
        'refused',
        'revoking_own_key',
        `${key.id} is the admin key doing the revoking`,
        'revoke it with another admin key, or in the dashboard',
      );
    }
    if (!key) {
      await confirmOrRefuse(`Revoke ${terminalText(args.id)}? Anything using it gets 401 at once.`, flags.yes, this.io, this.prompter);
    } else if (key.status === 'active') {
      this.markLive(key.environment, `revokes the production key ${key.id}`);
      const use = key.last_used_at ? `last used ${lastUse(key, this.timeView(flags.utc, this.io.stderr))}` : 'never used';
      await confirmOrRefuse(
        terminalText(`Revoke ${key.id} (${key.prefix_hint}${key.name ? `, "${key.name}"` : ''}, ${use})? Anything using it gets 401 at once.`),
        flags.yes,
        this.io,
        this.prompter,
      );
    }
    const revocation = await revokeKey(client, args.id);
    const at = revocation.revoked_at ? ` at ${revocation.revoked_at}` : '';
    this.log(terminalText(`${key && key.status !== 'active' ? 'Already revoked:' : 'Revoked'} ${args.id}${at}`));
    return revocation;
  }

  /** The key's details, or undefined when the service offers no way to read a key. */
  private async details(client: ApiClient, id: string): Promise<Key | undefined> {
    try {
      return await getKey(client, id);
    } catch (error) {
      if (!(error instanceof ApiError && error.status !== undefined && NO_KEY_READS.has(error.status))) throw error;
      this.warning(
        `GET /v1/keys/${id} answered ${error.status}: no such key, or the service offers no key reads; without its details svc cannot check that it is not the admin key in use, and asks the service to revoke it`,
      );
      return undefined;
    }
  }
}
