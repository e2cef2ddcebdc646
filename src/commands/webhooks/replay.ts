import { Args, Flags } from '@oclif/core';
import { assertStated, STATED } from '../../spec/stated.js';
import { ExitCode, SvcError } from '../../core/errors.js';
import { receiverCaCertFlag, storeFlag, webhookSecretFlag } from '../../flags/webhook.js';
import { WebhookCommand } from '../../cli/webhook-command.js';
import { checkForwardUrl, replayHeaders } from '../../webhooks/forward.js';
import { isDelivered, postRaw } from '../../webhooks/send.js';
import { DEFAULT_TOLERANCE_SECONDS } from '../../webhooks/signature.js';
import { describeStore } from '../../config/webhook-store.js';
import { openEventRecords } from '../../webhooks/event-records.js';
import { helpText } from '../../cli/help-text.js';

/** What `--json` prints. */
export type JsonResult = { event_id: string; url: string; status: number | null; error: string | null; duration_ms: number; resigned: boolean };

export default class WebhooksReplay extends WebhookCommand<JsonResult> {
  static override summary = 'Send a stored event again to an application';
  static override description = helpText`
    Posts the event's body byte for byte with the headers it arrived with. With a webhook secret (--secret or
    SVC_WEBHOOK_SECRET) the signature is made afresh, so an application that checks the timestamp accepts the
    replay; without one the original signature is sent, which such an application refuses once it is older than
    ${DEFAULT_TOLERANCE_SECONDS} s.

    Exit code 0 on a 2xx answer, 16 on another status, 8 when the application could not be reached.
  `;

  static override examples = [
    '<%= config.bin %> webhooks replay evt_123 --forward-to http://127.0.0.1:3000/hooks',
    {
      description: 'Resend a stored event, signed again, and print the answer',
      command: 'SVC_WEBHOOK_SECRET=… <%= config.bin %> webhooks replay evt_123 --forward-to http://127.0.0.1:3000/hooks --json',
    },
  ];

  static override args = {
    event: Args.string({ description: 'Event id (evt_…)', required: true }),
  };

  static override flags = {
    store: storeFlag,
    secret: webhookSecretFlag,
    'forward-to': Flags.string({ description: 'URL of the application: https://, or http:// to a loopback host', required: true }),
    'ca-cert': receiverCaCertFlag,
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(WebhooksReplay);
    checkForwardUrl(flags['forward-to'], '--forward-to');
    const secrets = await this.webhookSecrets(flags.secret, flags.profile, false);
    const network = await this.receiverNetwork(flags['ca-cert']);
    const location = await this.webhookStore(flags.store, flags.profile);
    const store = await openEventRecords(location);
    try {
      const event = await store.event(args.event);
      if (!event) {
        // A sender that breaks part 6 may have been stored with another id: only an id not found is judged by its prefix.
        assertStated([['event', args.event, STATED.eventId]]);
        throw new SvcError(
          'notFound',
          'not_found',
          `no accepted event ${args.event} in ${describeStore(location)}`,
          'list the stored events with `svc webhooks events`',
        );
      }
      const { headers, staleSignature } = replayHeaders(event, secrets);
      if (staleSignature) {
        this.warning(
          'the original signature is older than 300 s; an application that checks the timestamp will refuse it (give the webhook secret to sign the replay afresh)',
        );
      }
      const result = await postRaw(flags['forward-to'], headers, event.body, network);
      await store.recordForward(event.seq, { url: flags['forward-to'], status: result.status, error: result.error }, this.clock.now());
      this.log(`${args.event} → ${flags['forward-to']}: ${result.status ?? result.error} (${result.durationMs} ms)`);
      if (result.status === null) this.exitCode = ExitCode.network;
      else if (!isDelivered(result)) this.exitCode = ExitCode.verificationFailed;
      return {
        event_id: args.event,
        url: flags['forward-to'],
        status: result.status,
        error: result.error,
        duration_ms: result.durationMs,
        resigned: secrets.length > 0,
      };
    } finally {
      await store.close();
    }
  }
}
