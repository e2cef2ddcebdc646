import { Flags } from '@oclif/core';
import { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_ENCODINGS, SIGNED_PAYLOADS } from '../webhooks/signature.js';
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

export const signatureEncodingFlag = Flags.option({
  description:
    'Take v1 only in this encoding, where you know the one your sender uses; without it both are taken: hex (either case) and base64 (standard or URL-safe, padded or not), as the specification does not say which',
  options: SIGNATURE_ENCODINGS,
  helpGroup: 'WEBHOOK',
})();

export const signedPayloadFlag = Flags.option({
  description:
    'What your sender signs: timestamped, "<t>.<raw body>"; or body, the raw body alone (the specification does not say which). A signature of the body alone does not bind t, so a captured delivery verifies again with a fresh t: only dropping event ids already received keeps its replay from being taken as new',
  options: SIGNED_PAYLOADS,
  default: 'timestamped',
  helpGroup: 'WEBHOOK',
})();

export const signingEncodingFlag = Flags.option({
  description: "Encoding of v1: hex (openapi.yaml's choice) or base64 (standard, padded), as an implementation may choose",
  options: SIGNATURE_ENCODINGS,
  default: 'hex',
  helpGroup: 'WEBHOOK',
})();

export const signingPayloadFlag = Flags.option({
  description: 'What to sign: timestamped, "<t>.<raw body>" (openapi.yaml\'s choice); or body, the raw body alone, as an implementation may choose',
  options: SIGNED_PAYLOADS,
  default: 'timestamped',
  helpGroup: 'WEBHOOK',
})();

export const storeFlag = Flags.string({
  description:
    "Where the received events are kept: a SQLite file, or a postgres:// connection string that several listeners share (default: SVC_WEBHOOK_STORE, then the profile's webhook_store, then $XDG_DATA_HOME/svc/webhooks/events.db); a password in it is visible to other local users in the process list, prefer SVC_WEBHOOK_STORE or the profile",
  helpGroup: 'WEBHOOK',
});

export const strictSchemaFlag = Flags.boolean({
  description:
    "Refuse an authentic delivery whose body differs from openapi.yaml's event schemas (a kind it does not list, a missing field, a Service-Event header naming another kind), as when testing your own implementation; without it, that is a schema note",
  helpGroup: 'WEBHOOK',
});

export const receiverCaCertFlag = caCertFlag({ to: 'when sending to an https:// receiver (one with a certificate of its own)', helpGroup: 'WEBHOOK' });
