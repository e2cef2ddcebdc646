import { Flags } from '@oclif/core';
import { ExitCode } from '../../core/errors.js';
import { kindToSendArg, LISTED_KINDS, unlistedKindNotes } from '../../flags/event-kind.js';
import { receiverCaCertFlag, signingEncodingFlag, signingPayloadFlag, webhookSecretFlag } from '../../flags/webhook.js';
import { WebhookCommand } from '../../cli/webhook-command.js';
import { EVENT_TYPES } from '../../webhooks/envelope.js';
import { type EventBody, sampleEvent } from '../../webhooks/samples.js';
import { isDelivered, sendEvent } from '../../webhooks/send.js';
import { helpText } from '../../cli/help-text.js';

/** One event sent, as `--json` prints it: snake_case like the API. */
interface SentEvent {
  event: EventBody;
  url: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

/** What `--json` prints. */
export type JsonResult = SentEvent[];

export default class WebhooksTrigger extends WebhookCommand<JsonResult> {
  static override summary = 'Send a signed sample event to a receiver, as the service would';
  static override description = helpText`
    The sample is realistic and valid against openapi.yaml's schema for its kind, with fresh ids, signed now with
    the secret (one v1 per secret when several are given; hex over "<t>.<body>" unless --signature-encoding or
    --signed-payload say otherwise), with the headers of part 6. "all" sends one of each of
    the six kinds openapi.yaml lists. Any other kind is sent as the least part 6 describes, {id, type, created_at,
    data: {id}}, to test that a receiver takes kinds it does not know.

    Exit code 0 when every event got a 2xx answer, 16 when one was refused, 8 when the receiver could not be
    reached.
  `;

  static override examples = [
    '<%= config.bin %> webhooks trigger report.completed --to http://127.0.0.1:4000/hooks',
    '<%= config.bin %> webhooks trigger all --to http://127.0.0.1:4000/hooks --json',
    '<%= config.bin %> webhooks trigger report.archived --to http://127.0.0.1:4000/hooks',
    {
      description: 'Send a sample event signed in base64',
      command: '<%= config.bin %> webhooks trigger report.completed --to http://127.0.0.1:4000/hooks --signature-encoding base64',
    },
  ];

  static override args = {
    'event-type': kindToSendArg({ description: `Kind of event to send, or all. ${LISTED_KINDS}`, required: true }),
  };

  static override flags = {
    secret: webhookSecretFlag,
    to: Flags.string({ description: 'URL of the receiver', required: true }),
    'ca-cert': receiverCaCertFlag,
    'signature-encoding': signingEncodingFlag,
    'signed-payload': signingPayloadFlag,
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(WebhooksTrigger);
    const secrets = await this.webhookSecrets(flags.secret, flags.profile);
    this.warnOfWhitespace(secrets);
    const network = await this.receiverNetwork(flags['ca-cert']);
    const types = args['event-type'] === 'all' ? EVENT_TYPES : [args['event-type']];
    for (const line of unlistedKindNotes(types, 'sending the minimal sample {id, type, created_at, data: {id}}')) this.note(line);
    const sent: SentEvent[] = [];
    for (const type of types) {
      const event = sampleEvent(type);
      const result = await sendEvent(flags.to, type, JSON.stringify(event), secrets, network, {
        encoding: flags['signature-encoding'],
        signedPayload: flags['signed-payload'],
      });
      sent.push({ event, url: flags.to, status: result.status, error: result.error, duration_ms: result.durationMs });
      this.log(`${event.id}  ${type}  → ${flags.to}: ${result.status ?? result.error} (${result.durationMs} ms)`);
    }
    if (sent.some((item) => item.status === null)) {
      this.exitCode = ExitCode.network;
    } else if (sent.some((item) => !isDelivered(item))) {
      this.exitCode = ExitCode.verificationFailed;
    }
    return sent;
  }
}
