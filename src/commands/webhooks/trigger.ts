import { Flags } from '@oclif/core';
import { ExitCode, SvcError } from '../../core/errors.js';
import { kindToSendArg, LISTED_KINDS, unlistedKindNotes } from '../../flags/event-kind.js';
import { receiverCaCertFlag, signingEncodingFlag, signingPayloadFlag, webhookSecretFlag } from '../../flags/webhook.js';
import { WebhookCommand } from '../../cli/webhook-command.js';
import { EVENT_TYPES } from '../../webhooks/envelope.js';
import type { EventBody } from '../../webhooks/samples.js';
import { parseOverride, triggerEvents } from '../../webhooks/trigger-events.js';
import { runningListener } from '../../webhooks/running-listener.js';
import { isSandboxProfile } from '../../config/config-file.js';
import type { ApiClient } from '../../api/client.js';
import { assertStated, STATED } from '../../spec/stated.js';
import { terminalText } from '../../ui/terminal-text.js';
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

    Against the sandbox (its profile, which \`svc sandbox start\` writes), the events are about real resources, so
    that a handler that reads what it is told about finds it: a report made and analysed for the report events, a
    document uploaded and analysed for the document events (a rejected document is discarded, so it names none),
    or the ones --report and --document name. Elsewhere they name the ids --report and --document give, or fresh
    ones. --override sets any field of the events, after that.

    Without --to, the events go to the \`svc webhooks listen\` of the profile that runs now, which stores them and
    forwards them to its --forward-to.

    Exit code 0 when every event got a 2xx answer, 16 when one was refused, 8 when the receiver could not be
    reached.
  `;

  static override examples = [
    '<%= config.bin %> webhooks trigger report.completed',
    '<%= config.bin %> webhooks trigger report.completed --to http://127.0.0.1:4000/hooks',
    '<%= config.bin %> webhooks trigger all --to http://127.0.0.1:4000/hooks --json',
    '<%= config.bin %> webhooks trigger report.archived --to http://127.0.0.1:4000/hooks',
    {
      description: 'Announce an existing report, with a score of your choosing',
      command: '<%= config.bin %> webhooks trigger report.completed --report rep_123 --override data.risk_score=90',
    },
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
    to: Flags.string({ description: 'URL of the receiver (default: where the `svc webhooks listen` of the profile listens)' }),
    report: Flags.string({ description: 'Report (rep_…) the report events are about, instead of one made in the sandbox or a fresh id' }),
    document: Flags.string({ description: 'Document (doc_…) the document events are about, instead of one made in the sandbox or a fresh id' }),
    override: Flags.string({
      description: 'Set a field of the events, as a dotted path and a value read as JSON where it is JSON (data.risk_score=90); repeatable',
      multiple: true,
    }),
    'ca-cert': receiverCaCertFlag,
    'signature-encoding': signingEncodingFlag,
    'signed-payload': signingPayloadFlag,
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(WebhooksTrigger);
    assertStated([
      ['--report', flags.report, STATED.reportId],
      ['--document', flags.document, STATED.documentId],
    ]);
    const overrides = (flags.override ?? []).map(parseOverride);
    const secrets = await this.webhookSecrets(flags.secret, flags.profile);
    this.warnOfWhitespace(secrets);
    const profile = await this.profileName(flags.profile);
    const to = flags.to ?? (await this.listenerOf(profile));
    const network = await this.receiverNetwork(flags['ca-cert']);
    const types = args['event-type'] === 'all' ? EVENT_TYPES : [args['event-type']];
    for (const line of unlistedKindNotes(types, 'sending the minimal sample {id, type, created_at, data: {id}}')) this.note(line);
    const events = await triggerEvents(types, {
      client: await this.sandboxClient(profile),
      report: flags.report,
      document: flags.document,
      overrides,
      clock: this.clock,
      note: (line) => this.note(terminalText(line)),
    });
    const sent: SentEvent[] = [];
    for (const event of events) {
      const result = await sendEvent(to, event.type, JSON.stringify(event), secrets, network, {
        encoding: flags['signature-encoding'],
        signedPayload: flags['signed-payload'],
      });
      sent.push({ event, url: to, status: result.status, error: result.error, duration_ms: result.durationMs });
      this.log(terminalText(`${event.id}  ${event.type}  → ${to}: ${result.status ?? result.error} (${result.durationMs} ms)`));
    }
    if (sent.some((item) => item.status === null)) {
      this.exitCode = ExitCode.network;
    } else if (sent.some((item) => !isDelivered(item))) {
      this.exitCode = ExitCode.verificationFailed;
    }
    return sent;
  }

  /** Where the `webhooks listen` of the profile listens, when no --to is given. */
  private async listenerOf(profile: string): Promise<string> {
    const listener = await runningListener(this.paths.stateDir, profile);
    if (!listener) {
      throw new SvcError(
        'usage',
        'no_receiver',
        `no --to, and no \`svc webhooks listen\` of the profile "${profile}" runs`,
        'start one (`svc webhooks listen --forward-to <your application>`), or give --to <url>',
      );
    }
    const forwards = listener.forwardTo ? `, which forwards to ${listener.forwardTo}` : '';
    this.note(terminalText(`Sending to the listener of the profile "${profile}" on ${listener.url}${forwards}`));
    return listener.url;
  }

  /**
   * The sandbox's API, when the profile is a sandbox's and its base URL the one in use (not one given by
   * SVC_BASE_URL): there, svc makes and reads the resources the events are about. Elsewhere none: making
   * reports on a service spends its credits.
   */
  private async sandboxClient(profile: string): Promise<ApiClient | undefined> {
    if (!isSandboxProfile(profile)) return undefined;
    const { resolveConnection } = await import('../../config/connection.js');
    const connection = await resolveConnection({ profile }, this.io.env);
    if (connection.boundProfile !== profile || !connection.apiKey) return undefined;
    this.secrets.push(connection.apiKey.value);
    const { createApiClient } = await import('../../api/client.js');
    return createApiClient({ baseUrl: connection.baseUrl, key: connection.apiKey.value, network: await this.connectionNetwork(connection) });
  }
}
