import { Flags } from '@oclif/core';
import { DEFAULT_TOLERANCE_SECONDS } from '../webhooks/signature.js';
import { defaultStorePath } from '../webhooks/store.js';
import { caCertFlag } from './ca-cert.js';
import { secretHelp } from './secret.js';

export const webhookSecretFlag = Flags.string({
  description: secretHelp('Webhook secret (whsec_…); repeat it to try several during a rotation', 'SVC_WEBHOOK_SECRET (several separated by commas)'),
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

export const receiverCaCertFlag = caCertFlag({ to: 'when sending to an https:// receiver (one with a certificate of its own)', helpGroup: 'WEBHOOK' });
