import { Flags } from '@oclif/core';
import { redactKey } from '../../core/redaction.js';
import { SandboxCommand } from '../../cli/sandbox-command.js';
import { openSandboxStore } from '../../sandbox/profile.js';
import { renderTable } from '../../ui/table.js';

interface SandboxKey {
  role: string;
  id: string | null;
  workspace: string | null;
  environment: string;
  read_only: boolean;
  allowed_ips: string[];
  status: string;
  secret: string;
}

/** What `--json` prints. */
export type JsonResult = SandboxKey[];

export default class SandboxKeys extends SandboxCommand<JsonResult> {
  static override summary = "List the sandbox's keys and webhook secret";
  static override description =
    "Secrets are redacted unless --reveal is given: they are the local sandbox's own test credentials, and --reveal is how scripts and tests pick them up (for example with --json and jq).";

  static override examples = [
    '<%= config.bin %> sandbox keys',
    {
      description: "Print the sandbox's read-only key, for a script",
      command: '<%= config.bin %> sandbox keys --reveal --json | jq -r \'.[]|select(.role=="read_only")|.secret\'',
    },
  ];

  static override flags = {
    reveal: Flags.boolean({ description: 'Show the secrets in full' }),
  };

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(SandboxKeys);
    const store = openSandboxStore(this.sandboxDir(flags['data-dir']));
    try {
      const shown = (secret: string) => (flags.reveal ? secret : redactKey(secret));
      const keys: SandboxKey[] = store.sandboxKeys().map(({ key, role, workspaceId, secret }) => ({
        role: role!,
        id: key.id,
        workspace: workspaceId,
        environment: key.environment,
        read_only: key.read_only,
        allowed_ips: key.allowed_ips,
        status: key.status,
        secret: shown(secret ?? ''),
      }));
      const webhookSecret = store.setting('webhook_secret');
      if (webhookSecret) {
        keys.push({
          role: 'webhook_secret',
          id: null,
          workspace: null,
          environment: 'webhook',
          read_only: false,
          allowed_ips: [],
          status: 'active',
          secret: shown(webhookSecret),
        });
      }
      if (!flags.reveal) this.note('Secrets redacted; --reveal shows them.');
      this.log(
        renderTable(
          [
            'role',
            'id',
            { title: 'workspace', leaveOut: 3 },
            { title: 'status', leaveOut: 1 },
            { title: 'read-only', leaveOut: 2 },
            { title: 'allowed IPs', freeText: true },
            'secret',
          ],
          keys.map((key) => [key.role, key.id, key.workspace, key.status, key.read_only, key.allowed_ips.join(' '), key.secret]),
          this.io.stdout,
        ),
      );
      return keys;
    } finally {
      store.close();
    }
  }
}
