import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { AdminCommand } from '../../admin-command.js';
import type { Key } from '../../api/types.js';
import { writeSecretFile } from '../../config/secret-file.js';
import { createKey } from '../../services/keys.js';
import { renderKey } from '../../ui/keys.js';

export default class KeysCreate extends AdminCommand {
  static override summary = 'Create a key; its secret is written to --key-file (0600), never printed (admin key)';
  static override description = 'The API shows a secret once, at creation: svc writes it to --key-file, atomically and readable by you only, and prints the key without it.';
  static override examples = [
    '<%= config.bin %> keys create --name "billing worker" --key-file ./billing.key',
    '<%= config.bin %> keys create --environment live --read-only --allow-ip 203.0.113.7 --allow-ip 203.0.113.8 --key-file /run/secrets/svc.key --json',
  ];

  static override mutating = true;

  static override flags = {
    name: Flags.string({ description: 'Label of the key (1-100 characters)' }),
    environment: Flags.string({ description: 'Environment of the key', options: ['test', 'live'], default: 'test' }),
    'read-only': Flags.boolean({ description: 'Limit the key to read-only operations' }),
    'allow-ip': Flags.string({ description: 'Lock the key to this source IP address (repeatable; default: any address)', multiple: true }),
    'key-file': Flags.string({ description: 'File to write the secret to (mode 0600, replaced atomically)', required: true }),
  };

  public async run(): Promise<Key & { secret_file: string }> {
    const { flags } = await this.parse(KeysCreate);
    const { session } = await this.connectAdmin(flags);
    const environment = flags.environment as 'test' | 'live';
    this.markLive(environment, 'creates a production key: it consumes credits when used');
    const file = resolve(flags['key-file']);
    const { secret, ...key } = await createKey(session.client, {
      name: flags.name,
      environment,
      read_only: flags['read-only'],
      allowed_ips: flags['allow-ip'] ?? [],
    });
    this.secrets.push(secret);
    await writeSecretFile(file, `${secret}\n`);
    this.log(renderKey(key));
    this.note(`Secret written to ${file} (0600); it cannot be shown again.`);
    return { ...key, secret_file: file };
  }
}
