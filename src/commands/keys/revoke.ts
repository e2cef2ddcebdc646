import { Args, Flags } from '@oclif/core';
import { AdminCommand } from '../../admin-command.js';
import type { KeyRevocation } from '../../api/types.js';
import { redactKey } from '../../config/keys.js';
import { SvcError } from '../../errors.js';
import { getKey, revokeKey } from '../../services/keys.js';
import { confirmOrRefuse } from '../../ui/confirm.js';

export default class KeysRevoke extends AdminCommand {
  static override summary = 'Revoke a key, with immediate effect (admin key)';
  static override description = 'Anything still using the key gets 401 invalid_key from then on; `svc keys rotate` replaces a key in use without downtime. The admin key doing the revoking cannot revoke itself.';
  static override examples = ['<%= config.bin %> keys revoke key_123', '<%= config.bin %> keys revoke key_123 --yes --json'];

  static override mutating = true;

  static override args = {
    id: Args.string({ description: 'Key id (key_…)', required: true }),
  };

  static override flags = {
    yes: Flags.boolean({ char: 'y', description: 'Revoke without asking (required when not on a terminal)' }),
  };

  public async run(): Promise<KeyRevocation> {
    const { args, flags } = await this.parse(KeysRevoke);
    const { session, connection } = await this.connectAdmin(flags);
    const key = await getKey(session.client, args.id);
    if (key.environment === 'admin' && connection.adminKey && key.prefix_hint === redactKey(connection.adminKey.value)) {
      throw new SvcError('refused', 'revoking_own_key', `${key.id} is the admin key doing the revoking`, 'revoke it with another admin key, or in the dashboard');
    }
    if (key.status === 'active') {
      this.markLive(key.environment, `revokes the production key ${key.id}`);
      const lastUse = key.last_used_at ? `last used ${key.last_used_at}${key.last_used_ip ? ` from ${key.last_used_ip}` : ''}` : 'never used';
      await confirmOrRefuse(`Revoke ${key.id} (${key.prefix_hint}${key.name ? `, "${key.name}"` : ''}, ${lastUse})? Anything using it gets 401 at once.`, flags.yes);
    }
    const revocation = await revokeKey(session.client, key.id);
    this.log(`${key.status === 'active' ? 'Revoked' : 'Already revoked:'} ${key.id} at ${revocation.revoked_at}`);
    return revocation;
  }
}
