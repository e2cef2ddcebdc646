import { Args, Flags } from '@oclif/core';
import { assertStated, STATED } from '../../spec/stated.js';
import { ExitCode, SvcError } from '../../core/errors.js';
import { receiverCaCertFlag, storeFlag, webhookSecretFlag } from '../../flags/webhook.js';
import { WebhookCommand } from '../../cli/webhook-command.js';
import { checkForwardUrl } from '../../webhooks/forward.js';
import { notForwarded, type Replayed, type ReplayOptions, replayStored } from '../../webhooks/replay.js';
import { isDelivered } from '../../webhooks/send.js';
import { DEFAULT_TOLERANCE_SECONDS } from '../../webhooks/signature.js';
import { describeStore } from '../../config/webhook-store.js';
import { type EventRecords, openEventRecords } from '../../webhooks/event-records.js';
import { terminalText } from '../../ui/terminal-text.js';
import { helpText } from '../../cli/help-text.js';

/** One event sent again, as `--json` prints it. */
export interface ReplayedJson {
  event_id: string;
  url: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
  resigned: boolean;
}

/** What `--json` prints: the event replayed; with --not-forwarded, each event sent, in the order sent (the last one refused when the run stopped). */
export type JsonResult = ReplayedJson | ReplayedJson[];

function replayedJson({ event, url, result, resigned }: Replayed): ReplayedJson {
  return { event_id: event.eventId!, url, status: result.status, error: result.error, duration_ms: result.durationMs, resigned };
}

export default class WebhooksReplay extends WebhookCommand<JsonResult> {
  static override summary = 'Send stored events again to an application';
  static override description = helpText`
    Posts the event's body byte for byte with the headers it arrived with, to --forward-to, or else to the URL the
    listener forwarded it to. With a webhook secret (--secret, SVC_WEBHOOK_SECRET or the profile's webhook_secret)
    the signature is made afresh, so an application that checks the timestamp accepts the replay, and only for a
    stored delivery that verifies with that secret (whatever its age); without one the original signature is sent,
    which such an application refuses once it is older than ${DEFAULT_TOLERANCE_SECONDS} s.

    With --not-forwarded instead of an event id, every accepted event the application did not take (those
    \`svc webhooks events --not-forwarded\` lists) is sent again, oldest first, so that a report.created arrives
    before its report.completed; the run stops at the first event the application does not take with a 2xx.

    Exit code 0 on a 2xx answer (to every event), 16 on another status, 8 when the application could not be
    reached.
  `;

  static override examples = [
    '<%= config.bin %> webhooks replay evt_123 --forward-to http://127.0.0.1:3000/hooks',
    {
      description: 'Resend a stored event, signed again, and print the answer',
      command: 'SVC_WEBHOOK_SECRET=… <%= config.bin %> webhooks replay evt_123 --forward-to http://127.0.0.1:3000/hooks --json',
    },
    {
      description: 'Resend, oldest first, every event the application did not take, where the listener forwarded each',
      command: '<%= config.bin %> webhooks replay --not-forwarded',
    },
  ];

  static override args = {
    event: Args.string({ description: 'Event id (evt_…); or --not-forwarded' }),
  };

  static override flags = {
    store: storeFlag,
    secret: webhookSecretFlag,
    'not-forwarded': Flags.boolean({
      description: 'Every accepted event the application did not take, oldest first, stopping at the first it does not take',
    }),
    'forward-to': Flags.string({
      description: 'URL of the application: https://, or http:// to a loopback host (default: the URL the listener forwarded the event to)',
    }),
    'ca-cert': receiverCaCertFlag,
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(WebhooksReplay);
    if ((args.event === undefined) === !flags['not-forwarded']) {
      throw new SvcError(
        'usage',
        'replay_what',
        args.event === undefined ? 'no event to replay' : 'give an event id or --not-forwarded, not both',
        'give an event id (evt_…), or --not-forwarded for every event the application did not take',
      );
    }
    if (flags['forward-to'] !== undefined) checkForwardUrl(flags['forward-to'], '--forward-to');
    const options = {
      to: flags['forward-to'],
      secrets: await this.webhookSecrets(flags.secret, flags.profile, false),
      network: await this.receiverNetwork(flags['ca-cert']),
      at: () => this.clock.now(),
    };
    const location = await this.webhookStore(flags.store, flags.profile);
    const store = await openEventRecords(location);
    try {
      if (args.event !== undefined) {
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
        const replayed = await replayStored(store, event, options);
        this.report(replayed);
        return replayedJson(replayed);
      }
      return await this.replayNotForwarded(store, options);
    } finally {
      await store.close();
    }
  }

  /** Every event not forwarded, oldest first, until the first the application does not take. */
  private async replayNotForwarded(store: EventRecords, options: ReplayOptions): Promise<ReplayedJson[]> {
    const sent: ReplayedJson[] = [];
    for await (const event of notForwarded(store, this.clock.now())) {
      const replayed = await replayStored(store, event, options);
      this.report(replayed);
      sent.push(replayedJson(replayed));
      if (!isDelivered(replayed.result)) {
        this.note('Stopped at the first event the application did not take: the ones after it are left as they were; run this again once it does.');
        return sent;
      }
    }
    this.note(sent.length === 0 ? 'No events to replay: the application took every event.' : `Replayed ${sent.length} events, oldest first.`);
    return sent;
  }

  /** One line for an event sent (what the store holds is anyone's who may write it: escaped), and the exit code of its answer. */
  private report({ event, url, result, staleSignature }: Replayed): void {
    if (staleSignature) {
      this.warning(
        terminalText(
          `the original signature of ${event.eventId} is older than ${DEFAULT_TOLERANCE_SECONDS} s; an application that checks the timestamp will refuse it (give the webhook secret to sign the replay afresh)`,
        ),
      );
    }
    this.log(terminalText(`${event.eventId}  ${event.type ?? '-'}  → ${url}: ${result.status ?? result.error} (${result.durationMs} ms)`));
    if (result.status === null) this.exitCode = ExitCode.network;
    else if (!isDelivered(result)) this.exitCode = ExitCode.verificationFailed;
  }
}
