import { readFile } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { isLoopbackHost } from '../../api/base-url.js';
import { redactKey, redactValue } from '../../core/redaction.js';
import { SvcError } from '../../core/errors.js';
import { durationFlag } from '../../flags/duration.js';
import { kindReceivedFlag, LISTED_KINDS, unlistedKindNotes } from '../../flags/event-kind.js';
import { DEFAULT_BODY_LIMIT } from '../../core/inbound-http.js';
import { writeJsonLine } from '../../ui/json-lines.js';
import { type DeliveryJson, deliveryJson, deliveryLine, type RefusalJson, refusalJson, type TakeoverJson, takeoverJson } from '../../ui/listener.js';
import { terminalText } from '../../ui/terminal-text.js';
import type { TimeView } from '../../ui/time.js';
import {
  receiverCaCertFlag,
  signatureEncodingFlag,
  signedPayloadFlag,
  storeFlag,
  strictSchemaFlag,
  toleranceFlag,
  webhookSecretFlag,
} from '../../flags/webhook.js';
import { WebhookCommand } from '../../cli/webhook-command.js';
import { checkForwardUrl } from '../../webhooks/forward.js';
import { type ListenerReport, WebhookListener } from '../../webhooks/listener.js';
import { announceListener } from '../../webhooks/running-listener.js';
import type { FileLock } from '../../core/file-lock.js';
import { describeStore, type StoreLocation } from '../../config/webhook-store.js';
import { openEventRecords } from '../../webhooks/event-records.js';
import { DEFAULT_REJECTED_LIMITS, REJECTED_BODY_BYTES } from '../../webhooks/event-rows.js';
import { helpText } from '../../cli/help-text.js';

const fraction = Flags.custom<number>({
  parse: async (input) => {
    const value = Number(input);
    if (!(value >= 0 && value <= 1)) throw new Error(`${input} is not a fraction between 0 and 1`);
    return value;
  },
});

/** What `--json` writes: one line when the listener is ready, then one per delivery. */
export type JsonLine =
  | {
      event: 'ready';
      /** Deprecated: the line's name in 0.1.0, until 0.3.0; read `event`. */
      kind: 'ready';
      url: string;
      store: string;
      forward_to: string | null;
    }
  | DeliveryJson
  | RefusalJson
  | TakeoverJson;

export default class WebhooksListen extends WebhookCommand<void, JsonLine> {
  private readonly lines: string[] = [];

  static override summary = 'Receive, verify and store webhook deliveries; forward them to your application';
  static override description = helpText`
    Verifies every delivery (signature over the raw body, timestamp within --tolerance, then the envelope part 6
    states: a UTF-8 JSON object with an id starting with evt_, a type and a data object) and commits each accepted
    event to a SQLite store before answering 200, so an acknowledged event is never lost, even to kill -9. An
    event id already stored is acknowledged again but not forwarded twice, also across restarts.

    With a postgres:// store (--store, SVC_WEBHOOK_STORE or the profile's webhook_store), several listeners share
    one database behind a load balancer: each event is stored once whichever replica gets it, and forwarded by the
    one that claimed it; a replica that dies leaves its forwards to another after --forward-lease. While the
    database does not answer, deliveries are answered 503 (see docs/webhooks.md, "Running a fleet"). A delivery that
    fails verification is answered 400 and kept as rejected, with its reason; it is never forwarded.

    The signature is HMAC-SHA256 over "<t>.<raw body>", its v1 in hex or base64 (--signature-encoding pins one).
    With --signed-payload body, over the raw body alone: that signature does not bind t, so a captured delivery
    verifies again with a fresh t, and the store's duplicate-id check is then all that keeps its replay from being
    taken as new (an event pruned from the store is new again).

    Where an authentic event differs from openapi.yaml's event schemas (any data, kinds it does not list, no
    created_at, a Service-Event header naming another kind), it is accepted all the same, with schema notes;
    --strict-schema refuses it instead (400 envelope_invalid), for testing your own implementation.

    With --forward-to, each new event is posted to the application with its raw body and original headers; the
    sender's answer reflects the storing, not the application.

    A rejected delivery keeps its headers, its reason and the first ${REJECTED_BODY_BYTES} bytes of its body; only
    the newest are kept (--rejected-max-count, --rejected-max-bytes), for --rejected-ttl: anyone who can reach the
    listener can send them.

    One line per delivery on stdout (time, event id, type, resource id, verification, forwarding, schema notes),
    or one JSON object per line with --json: first {"event":"ready","url",…}, then
    {"event":"delivery",…,"schema_notes":[…]} and {"event":"refused",…}.

    Plain HTTP is for loopback hosts; give --cert and --key to listen with TLS elsewhere.
  `;

  static override examples = [
    '<%= config.bin %> webhooks listen --forward-to http://127.0.0.1:3000/hooks',
    {
      description: 'Listen on any free port for two kinds, one JSON line per delivery',
      command: '<%= config.bin %> webhooks listen --port 0 --json --events report.completed,report.failed',
    },
    {
      description: 'Listen on every interface over TLS',
      command: '<%= config.bin %> webhooks listen --host 0.0.0.0 --port 8443 --cert cert.pem --key key.pem',
    },
    '<%= config.bin %> webhooks listen --fail-rate 0.3 --delay 2s',
    {
      description: "Refuse deliveries that differ from openapi.yaml's events, forwarding the others",
      command: '<%= config.bin %> webhooks listen --strict-schema --forward-to http://127.0.0.1:3000/hooks',
    },
    {
      description: 'Take only base64 signatures, forwarding what verifies',
      command: '<%= config.bin %> webhooks listen --signature-encoding base64 --forward-to http://127.0.0.1:3000/hooks',
    },
    {
      description: 'One replica of a fleet sharing a PostgreSQL store, over TLS',
      command:
        'SVC_WEBHOOK_STORE=postgres://… <%= config.bin %> webhooks listen --host 0.0.0.0 --port 8443 --cert cert.pem --key key.pem --forward-to https://app.internal/hooks',
    },
  ];

  static override flags = {
    secret: webhookSecretFlag,
    tolerance: toleranceFlag,
    store: storeFlag,
    'strict-schema': strictSchemaFlag,
    'signature-encoding': signatureEncodingFlag,
    'signed-payload': signedPayloadFlag,
    port: Flags.integer({ description: 'Port to listen on (0: any free port)', default: 4000, min: 0, max: 65_535 }),
    host: Flags.string({ description: 'Address to listen on; plain HTTP only on loopback', default: '127.0.0.1' }),
    cert: Flags.string({ description: 'PEM certificate (chain) for HTTPS', dependsOn: ['key'] }),
    key: Flags.string({ description: 'PEM private key for HTTPS', dependsOn: ['cert'] }),
    'forward-to': Flags.string({ description: 'URL of the application to pass each new verified event to: https://, or http:// to a loopback host' }),
    'ca-cert': receiverCaCertFlag,
    events: kindReceivedFlag({
      description: `Only forward and show events of these kinds, comma-separated (the others are still verified, stored and acknowledged; refused deliveries are always shown). ${LISTED_KINDS}`,
      multiple: true,
      delimiter: ',',
    }),
    'max-body': Flags.integer({ description: 'Largest body accepted, in bytes; a larger one is answered 413 unread', default: DEFAULT_BODY_LIMIT, min: 1 }),
    'rejected-max-count': Flags.integer({
      description: 'Rejected deliveries kept at most; the oldest go first',
      default: DEFAULT_REJECTED_LIMITS.maxCount,
      min: 0,
      helpGroup: 'REJECTED',
    }),
    'rejected-max-bytes': Flags.integer({
      description: 'Bytes the rejected deliveries kept may take (their headers, detail and first bytes of body); the oldest go first',
      default: DEFAULT_REJECTED_LIMITS.maxBytes,
      min: 0,
      helpGroup: 'REJECTED',
    }),
    'rejected-ttl': durationFlag({
      description: 'How long a rejected delivery is kept (1h, 7d)',
      default: DEFAULT_REJECTED_LIMITS.ttlMs,
      defaultHelp: async () => '7d',
      helpGroup: 'REJECTED',
    }),
    respond: Flags.integer({
      description: 'Fault injection: answer with this status (300-599) instead, without storing; with --fail-rate, only that fraction',
      min: 300,
      max: 599,
      helpGroup: 'FAULTS',
    }),
    'fail-rate': fraction({
      description: 'Fault injection: answer this fraction of deliveries (0-1) with --respond, 500 by default, without storing',
      helpGroup: 'FAULTS',
    }),
    'forward-lease': durationFlag({
      description:
        'With a PostgreSQL store: how long a listener holds an event it is forwarding (renewed while it runs); one that died leaves its events to the others after this',
      default: 30_000,
      defaultHelp: async () => '30s',
      helpGroup: 'FLEET',
    }),
    delay: durationFlag({ description: 'Fault injection: hold every answer back this long (500ms, 2s; over 10s the sender times out)', helpGroup: 'FAULTS' }),
  };

  public async run(): Promise<void> {
    const { flags } = await this.parse(WebhooksListen);
    if (flags['forward-to'] !== undefined) checkForwardUrl(flags['forward-to'], '--forward-to');
    const secrets = await this.webhookSecrets(flags.secret, flags.profile);
    this.warnOfWhitespace(secrets);
    if (flags['signed-payload'] === 'body') {
      this.warning(
        "--signed-payload body: a signature of the body alone does not bind t, so a captured delivery verifies again with a fresh t; only the store's duplicate-id check keeps its replay from being taken as new, and an event pruned from the store is new again",
      );
    }
    const network = await this.receiverNetwork(flags['ca-cert']);
    const tls = await this.serverTls(flags.host, flags.cert, flags.key);
    for (const line of unlistedKindNotes(flags.events ?? [], 'only events of exactly that kind are forwarded (is it spelt as the service sends it?)'))
      this.note(line);
    const store = await this.webhookStore(flags.store, flags.profile);
    await this.sayUnfinishedForwards(store);
    const listener = new WebhookListener({
      host: flags.host,
      port: flags.port,
      tls,
      secrets,
      toleranceSeconds: flags.tolerance,
      encodings: flags['signature-encoding'] && [flags['signature-encoding']],
      signedPayloads: [flags['signed-payload']],
      store,
      forwardLeaseMs: flags['forward-lease'],
      clock: this.clock,
      forwardTo: flags['forward-to'],
      network,
      eventTypes: flags.events,
      strictSchema: flags['strict-schema'],
      bodyLimitBytes: flags['max-body'],
      rejectedLimits: { maxCount: flags['rejected-max-count'], maxBytes: flags['rejected-max-bytes'], ttlMs: flags['rejected-ttl'] },
      faults: { status: flags.respond, rate: flags['fail-rate'] ?? (flags.respond === undefined ? 0 : 1), delayMs: flags.delay ?? 0 },
    });
    const json = this.jsonEnabled();
    const times = this.timeView(flags.utc);
    listener.on('report', (report) => this.render(report, json, times));
    const url = await this.startListening(listener, flags.host, flags.port);
    const announced = await this.announce(flags.profile, url, flags['forward-to']);
    try {
      // Ctrl-C and SIGTERM are handled before the listener says it is ready: whoever starts it may stop it at once.
      const stopped = this.untilInterrupted(() => this.note('Stopping: finishing the deliveries under way…'));
      this.sayReady(url, store, secrets, flags['forward-to'], flags['strict-schema']);

      await stopped;
      await listener.stop();
      this.flushLines();
    } finally {
      await announced?.release();
    }
  }

  /** Says where this listener runs, for `webhooks trigger` of the same profile to send to it by default. */
  private async announce(profileFlag: string | undefined, url: string, forwardTo: string | undefined): Promise<FileLock | undefined> {
    const profile = await this.profileName(profileFlag);
    let announced: FileLock | undefined;
    try {
      announced = await announceListener(this.paths.stateDir, profile, { url, forwardTo: forwardTo ?? null, pid: process.pid });
    } catch (error) {
      this.warning(`could not record where this listener runs (${(error as Error).message}): \`svc webhooks trigger\` needs --to`);
      return undefined;
    }
    if (!announced) this.note(`Another \`svc webhooks listen\` of the profile "${profile}" runs: \`svc webhooks trigger\` sends to that one unless given --to`);
    return announced;
  }

  /** The certificate and key to listen with; plain HTTP only on a loopback host. */
  private async serverTls(host: string, cert: string | undefined, key: string | undefined): Promise<{ cert: string; key: string } | undefined> {
    const tls = cert && key ? { cert: await readFile(cert, 'utf8'), key: await readFile(key, 'utf8') } : undefined;
    if (!tls && !isLoopbackHost(host)) {
      throw new SvcError(
        'usage',
        'plain_http_not_loopback',
        `plain HTTP on ${host} would expose the deliveries`,
        'give --cert and --key to listen with TLS, or listen on 127.0.0.1',
      );
    }
    return tls;
  }

  /** Says how many forwards an earlier run left unfinished in the store: a fleet takes them over, a SQLite store's are the operator's to replay. */
  private async sayUnfinishedForwards(store: StoreLocation): Promise<void> {
    const opened = await openEventRecords(store);
    const unfinished = await opened.unfinishedForwards();
    await opened.close();
    if (unfinished > 0 && store.kind === 'postgres') {
      this.note(`${unfinished} stored events were left unforwarded by a listener that stopped; forwarding them now`);
    } else if (unfinished > 0) {
      this.warning(
        `${unfinished} stored events were being forwarded when an earlier run stopped; they are not forwarded again automatically (list them with \`svc webhooks events --not-forwarded\`, replay with \`svc webhooks replay\`)`,
      );
    }
  }

  /** Starts the listener; a port that cannot be listened on is a usage error that says why. */
  private async startListening(listener: WebhookListener, host: string, port: number): Promise<string> {
    try {
      return await listener.start();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new SvcError(
        'usage',
        'cannot_listen',
        `cannot listen on ${host}:${port}: ${code ?? (error as Error).message}`,
        code === 'EADDRINUSE' ? 'another process uses the port: choose another with --port (0: any free port)' : undefined,
      );
    }
  }

  /** The ready line with --json; for people, where the listener listens, verifies, stores and forwards. */
  private sayReady(url: string, store: StoreLocation, secrets: readonly string[], forwardTo: string | undefined, strictSchema: boolean): void {
    if (this.jsonEnabled()) {
      this.io.stdout.write(`${this.formatJsonLine({ event: 'ready', kind: 'ready', url, store: describeStore(store), forward_to: forwardTo ?? null })}\n`);
    } else {
      this.note(`Listening on ${url}, verifying with ${secrets.map((secret) => redactKey(secret)).join(', ')}; events stored in ${describeStore(store)}`);
      if (forwardTo) this.note(`Forwarding new events to ${forwardTo}`);
      if (strictSchema) this.note("Refusing events that differ from openapi.yaml's event schemas (--strict-schema)");
      this.note('Press Ctrl-C to stop.');
    }
  }

  /** One line, so that with --json even a failure to start keeps stdout to JSON lines. */
  public override logJson(json: unknown): void {
    writeJsonLine(this.io.stdout, json);
  }

  /** Writes stdout lines once per turn of the event loop: one write for a burst of deliveries, not one each. */
  private print(line: string): void {
    if (this.lines.push(line) === 1) setImmediate(() => this.flushLines());
  }

  private flushLines(): void {
    if (this.lines.length > 0) this.io.stdout.write(`${this.lines.splice(0).join('\n')}\n`);
  }

  private render(unredacted: ListenerReport, json: boolean, times: TimeView): void {
    // What a delivery claims is the sender's to say: a secret in it is redacted before a line is made (and wrapped).
    const report = redactValue(unredacted, this.secrets);
    if (report.kind === 'store') {
      this.note(
        report.available
          ? 'The event store answers again: deliveries are stored and acknowledged again'
          : terminalText(`The event store does not answer (${report.detail}): deliveries are answered 503, so that the service retries them`),
      );
    } else if (report.kind === 'unrecorded') {
      const { eventId, outcome, detail } = report;
      this.warning(
        terminalText(
          `could not record in the event store what became of forwarding ${eventId ?? 'an event without an id'} to ${outcome.url} (${outcome.status ?? outcome.error}): ${detail}; the store still shows that forward as unfinished`,
        ),
      );
    } else if (json) {
      this.print(
        this.formatJsonLine(report.kind === 'delivery' ? deliveryJson(report) : report.kind === 'takeover' ? takeoverJson(report) : refusalJson(report)),
      );
    } else if (report.kind === 'delivery') {
      this.print(deliveryLine(report, times, this.io.stdout));
    } else if (report.kind === 'takeover') {
      const { event, forward, detail } = report;
      if (forward)
        this.note(terminalText(`forwarded ${event.id} (left unfinished by a listener that stopped) to ${forward.url}: ${forward.status ?? forward.error}`));
      else this.warning(terminalText(`${event.id ?? 'an event without an id'} (left unfinished by a listener that stopped) was ${detail}`));
    } else {
      this.note(
        terminalText(`refused${report.status === null ? '' : ` (${report.status})`} a request from ${report.remote ?? 'an unknown address'}: ${report.detail}`),
      );
    }
  }
}
