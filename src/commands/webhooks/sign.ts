import { Flags } from '@oclif/core';
import { SvcError } from '../../core/errors.js';
import { signingEncodingFlag, signingPayloadFlag, webhookSecretFlag } from '../../flags/webhook.js';
import { readPayload } from '../../ui/stdin.js';
import { WebhookCommand } from '../../cli/webhook-command.js';
import { signatureHeader } from '../../webhooks/signature.js';

/** What `--json` prints. */
export type JsonResult = { header: string };

export default class WebhooksSign extends WebhookCommand<JsonResult> {
  static override summary = 'Make the Service-Signature header for a payload, to test a receiver';
  static override description =
    'Signs the bytes of the payload with HMAC-SHA256 and prints the header value t=…,v1=…: over "<t>.<body>" in hex, openapi.yaml\'s choice, unless --signed-payload or --signature-encoding say otherwise. With several secrets, one v1 per secret, as during a rotation.';

  static override examples = [
    '<%= config.bin %> webhooks sign --payload-file event.json',
    '<%= config.bin %> webhooks sign --payload-file event.json --signature-encoding base64',
    {
      description: 'Send a signed event to a receiver with curl',
      command:
        'SIG=$(<%= config.bin %> webhooks sign --payload-file event.json) && curl -H "Service-Signature: $SIG" -H "Content-Type: application/json" --data-binary @event.json http://127.0.0.1:3000/hooks',
    },
  ];

  static override flags = {
    secret: webhookSecretFlag,
    'payload-file': Flags.string({ description: 'File holding the body to sign, byte for byte (default: stdin)' }),
    timestamp: Flags.integer({ description: 'Unix seconds to sign with (default: now)', min: 0 }),
    'signature-encoding': signingEncodingFlag,
    'signed-payload': signingPayloadFlag,
  };

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(WebhooksSign);
    const secrets = await this.webhookSecrets(flags.secret, flags.profile);
    this.warnOfWhitespace(secrets);
    const body = await readPayload(
      this.io,
      flags['payload-file'],
      () => new SvcError('usage', 'missing_payload', 'no payload to sign', 'give --payload-file, or pipe the body to stdin'),
    );
    const header = signatureHeader(secrets, body, flags.timestamp, { encoding: flags['signature-encoding'], signedPayload: flags['signed-payload'] });
    this.log(header);
    return { header };
  }
}
