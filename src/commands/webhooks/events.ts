import { Flags } from '@oclif/core';
import { instantFlag } from '../../flags/duration.js';
import { kindReceivedFlag, LISTED_KINDS } from '../../flags/event-kind.js';
import { renderTable } from '../../ui/table.js';
import { forwardCell, statusCell, storedEventJson, type StoredEventJson } from '../../ui/webhooks.js';
import { storeFlag } from '../../flags/webhook.js';
import { openEventRecords } from '../../webhooks/event-records.js';
import { REJECTED_BODY_BYTES, type StoredStatus } from '../../webhooks/event-rows.js';
import { WebhookCommand } from '../../cli/webhook-command.js';

/** What `--json` prints. */
export type JsonResult = StoredEventJson[];

export default class WebhooksEvents extends WebhookCommand<JsonResult> {
  static override summary = 'List the events `svc webhooks listen` received, newest first';
  static override description = `Accepted events appear once per event id, with the number of repeated deliveries and the schema notes they were accepted with (how they differ from openapi.yaml's event schemas); rejected deliveries appear each with the reason they were refused. With --json, each entry carries the headers and the body as received, so a rejected delivery can be checked again with \`svc webhooks verify\`; of a rejected body longer than ${REJECTED_BODY_BYTES} bytes only the first ones are kept, as body_prefix (body_truncated: true), which cannot be verified.`;

  static override examples = [
    '<%= config.bin %> webhooks events',
    {
      description: 'Only completed and failed reports of the last hour',
      command: '<%= config.bin %> webhooks events --type report.completed --type report.failed --since 1h',
    },
    '<%= config.bin %> webhooks events --status rejected --json',
    '<%= config.bin %> webhooks events --not-forwarded',
  ];

  static override flags = {
    store: storeFlag,
    type: kindReceivedFlag({ description: `Only events of this kind (repeatable). ${LISTED_KINDS}`, multiple: true }),
    status: Flags.string({ description: 'Only accepted events, or only rejected deliveries', options: ['accepted', 'rejected'] }),
    'not-forwarded': Flags.boolean({
      description: 'Only accepted events whose forwarding got no 2xx answer or was cut off (replay them with `svc webhooks replay`)',
    }),
    since: instantFlag({ description: 'Received at or after this time: ISO 8601, or a duration ago (30m, 2h, 7d)' }),
    until: instantFlag({ description: 'Received before this time: ISO 8601, or a duration ago' }),
    limit: Flags.integer({ description: 'At most this many', default: 50, min: 1 }),
  };

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(WebhooksEvents);
    const store = await openEventRecords(await this.webhookStore(flags.store, flags.profile));
    try {
      const events = await store.events({
        types: flags.type,
        status: flags.status as StoredStatus | undefined,
        notForwarded: flags['not-forwarded'],
        since: flags.since,
        until: flags.until,
        limit: flags.limit,
      });
      if (events.length === 0) this.note('No events.');
      else {
        const times = this.timeView(flags.utc);
        this.log(
          renderTable(
            [
              'received',
              'event',
              // What an event is comes before what it is about, and that before the application's answer to a forward.
              { title: 'type', leaveOut: 3 },
              { title: 'resource', leaveOut: 2 },
              { title: 'status', freeText: true },
              { title: 'forward', freeText: true, leaveOut: 1 },
            ],
            events.map((event) => [times.short(event.receivedAt), event.eventId, event.type, event.resourceId, statusCell(event), forwardCell(event)]),
            this.io.stdout,
          ),
        );
      }
      return events.map(storedEventJson);
    } finally {
      await store.close();
    }
  }
}
