import { Flags } from '@oclif/core';
import { trustOnly } from './api/transport.js';
import { BaseCommand } from './base-command.js';
import { ConfigError } from './errors.js';
import { DEFAULT_TOLERANCE_SECONDS } from './webhooks/signature.js';
import { defaultStorePath } from './webhooks/store.js';

export const secretFlag = Flags.string({
  description:
    'Webhook secret (whsec_…); repeat it to try several during a rotation. Visible to other local users in the process list: prefer SVC_WEBHOOK_SECRET (several separated by commas)',
  multiple: true,
  helpGroup: 'WEBHOOK',
});

export const toleranceFlag = Flags.integer({
  description: 'Seconds a signature timestamp may be off, either way',
  default: DEFAULT_TOLERANCE_SECONDS,
  min: 0,
  helpGroup: 'WEBHOOK',
});

export const storeFlag = Flags.string({
  description: 'SQLite file of the received events',
  default: async () => defaultStorePath(),
  // What help shows (and the generated docs/commands.md): the rule, not this machine's path.
  defaultHelp: async () => '$XDG_DATA_HOME/svc/webhooks/events.db',
  helpGroup: 'WEBHOOK',
});

export const strictSchemaFlag = Flags.boolean({
  description:
    "Refuse an authentic delivery whose body differs from openapi.yaml's event schemas (a kind it does not list, a missing field, a Service-Event header naming another kind), as when testing your own implementation; without it, that is a schema note",
  helpGroup: 'WEBHOOK',
});

export const caCertFlag = Flags.string({
  description: 'PEM CA certificate to trust, instead of the system roots, when sending to an https:// receiver (one with a certificate of its own)',
  helpGroup: 'WEBHOOK',
});

/** A `svc webhooks …` command that signs or verifies: takes the webhook secret from --secret or SVC_WEBHOOK_SECRET. */
export abstract class WebhookCommand extends BaseCommand {
  /** The secrets to sign or verify with (none, when not `required` and not given); redacted from everything this run prints. */
  protected webhookSecrets(fromFlag: string[] | undefined, required = true): string[] {
    let secrets: string[];
    if (fromFlag?.length) {
      this.warning('a secret given with --secret is visible to other local users in the process list; prefer SVC_WEBHOOK_SECRET');
      secrets = fromFlag;
    } else if (process.env.SVC_WEBHOOK_SECRET) {
      // Spaces next to a comma are separators; those around the whole value are kept, so they can be reported.
      secrets = process.env.SVC_WEBHOOK_SECRET.split(/ *, */).filter((secret) => secret !== '');
    } else if (!required) {
      return [];
    } else {
      throw new ConfigError(
        'missing_webhook_secret',
        'no webhook secret',
        'set SVC_WEBHOOK_SECRET (several separated by commas during a rotation), or pass --secret',
      );
    }
    this.secrets.push(...secrets);
    return secrets;
  }

  /** With --ca-cert, the receivers this command sends to are trusted by that CA alone. */
  protected trustReceiverCa(caCertPath: string | undefined): void {
    if (caCertPath) trustOnly(caCertPath);
  }

  /** Warns of a secret with white space around it: the sender's copy almost certainly has none. */
  protected warnOfWhitespace(secrets: readonly string[]): void {
    for (const [index, secret] of secrets.entries()) {
      if (secret.trim() !== secret)
        this.warning(`webhook secret #${index + 1} has white space around it; signatures made with the secret itself will not match`);
    }
  }
}
