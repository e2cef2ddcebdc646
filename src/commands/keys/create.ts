import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { AdminCommand } from '../../cli/admin-command.js';
import type { ApiClient } from '../../api/client.js';
import type { Key } from '../../api/types.js';
import { prepareNewSecretFile, writeSecretFile } from '../../core/secret-file.js';
import { SvcError } from '../../core/errors.js';
import { createKey, revokeKey } from '../../services/keys.js';
import { renderKey } from '../../ui/keys.js';

/** What `--json` prints. */
export type JsonResult = Key & { secret_file: string };

export default class KeysCreate extends AdminCommand<JsonResult> {
  static override summary = 'Create a key; its secret goes to --key-file (0600), never printed (admin key)';
  static override description =
    "The API shows a secret once, at creation: svc writes it to --key-file, atomically and readable by you only, and prints the key without it. Before the key is made, svc refuses a path that cannot be written, a directory that does not exist (it makes none) and a file that exists (it may hold another key's secret): --force replaces that file, keeping what it held in <file>.old (0600). Should the write fail all the same, the key is revoked, as nobody would hold its secret.";
  static override examples = [
    '<%= config.bin %> keys create --name "billing worker" --key-file ./billing.key',
    {
      description: 'Make a live read-only key locked to two addresses, written to a file',
      command:
        '<%= config.bin %> keys create --environment live --read-only --allow-ip 203.0.113.7 --allow-ip 203.0.113.8 --key-file /run/secrets/svc.key --json',
    },
  ];

  static override mutating = true;

  static override flags = {
    name: Flags.string({ description: 'Label of the key (1-100 characters)' }),
    environment: Flags.string({ description: 'Environment of the key', options: ['test', 'live'], default: 'test' }),
    'read-only': Flags.boolean({ description: 'Limit the key to read-only operations' }),
    'allow-ip': Flags.string({ description: 'Lock the key to this source IP address (repeatable; default: any address)', multiple: true }),
    'key-file': Flags.string({ description: 'New file to write the secret to (mode 0600, written atomically), in a directory that exists', required: true }),
    force: Flags.boolean({ description: 'Replace a --key-file that exists; what it held is kept in <file>.old (0600)' }),
  };

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(KeysCreate);
    const { client } = await this.connectAdmin(flags);
    const environment = flags.environment as 'test' | 'live';
    this.markLive(environment, 'creates a production key: it consumes credits when used');
    const file = resolve(flags['key-file']);
    const keptAside = await prepareNewSecretFile(file, '--key-file', flags.force);
    const { secret, ...key } = await createKey(client, {
      name: flags.name,
      environment,
      read_only: flags['read-only'],
      allowed_ips: flags['allow-ip'] ?? [],
    });
    this.secrets.push(secret);
    this.made = { object: 'key', id: key.id };
    try {
      await writeSecretFile(file, `${secret}\n`);
    } catch (error) {
      throw await this.revokeUnsaved(client, key.id, file, error as Error);
    }
    this.log(renderKey(key, this.timeView(flags.utc), this.io.stdout));
    this.note(`Secret written to ${file} (0600); it cannot be shown again.`);
    if (keptAside) this.note(`What ${file} held is kept in ${keptAside} (0600): delete it once nothing needs that secret.`);
    return { ...key, secret_file: file };
  }

  /** The secret could not be saved, so nobody holds it: the key it belongs to must not stay active. */
  private async revokeUnsaved(client: ApiClient, id: string, file: string, writeError: Error): Promise<SvcError> {
    const lost = `the secret of ${id} could not be written to ${file} (${writeError.message})`;
    try {
      await revokeKey(client, id);
    } catch (revokeError) {
      return new SvcError(
        'failure',
        'key_unsaved',
        `${lost}, and revoking ${id} failed: ${(revokeError as Error).message}`,
        `nobody holds its secret: revoke it with \`svc keys revoke ${id} --yes\``,
      );
    }
    return new SvcError(
      'failure',
      'key_unsaved',
      `${lost}; ${id} was revoked, as nobody holds its secret`,
      'give --key-file a path that can be written and run the command again',
    );
  }
}
