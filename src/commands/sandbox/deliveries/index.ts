import { Flags } from '@oclif/core';
import { assertStated, STATED } from '../../../spec/stated.js';
import { SandboxCommand } from '../../../cli/sandbox-command.js';
import { openSandboxStore } from '../../../sandbox/profile.js';
import type { Delivery } from '../../../sandbox/database.js';
import { type AttemptJson, attemptJson, type DeliveryJson, deliveryJson } from '../../../ui/sandbox-deliveries.js';
import { renderTable } from '../../../ui/table.js';

/** What `--json` prints. */
export type JsonResult = Array<DeliveryJson & { attempt_log: AttemptJson[] }>;

export default class SandboxDeliveries extends SandboxCommand<JsonResult> {
  static override summary = "List the sandbox's webhook deliveries, dead letters included";
  static override examples = [
    '<%= config.bin %> sandbox deliveries',
    '<%= config.bin %> sandbox deliveries --status dead',
    '<%= config.bin %> sandbox deliveries --event evt_123 --json',
  ];

  static override flags = {
    status: Flags.string({ description: 'Only deliveries in this state (dead: every attempt of part 6 failed)', options: ['pending', 'delivered', 'dead'] }),
    event: Flags.string({ description: 'Only the deliveries of this event (evt_…)' }),
    limit: Flags.integer({ description: 'Newest first, at most this many', default: 50, min: 1 }),
  };

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(SandboxDeliveries);
    assertStated([['--event', flags.event, STATED.eventId]]);
    const store = openSandboxStore(this.sandboxDir(flags['data-dir']));
    try {
      const deliveries = store.deliveries({ status: flags.status as Delivery['status'] | undefined, eventId: flags.event, limit: flags.limit });
      if (deliveries.length === 0) this.note('No deliveries.');
      else {
        const times = this.timeView(flags.utc);
        this.log(
          renderTable(
            [
              { title: 'delivery', leaveOut: 3 },
              'event',
              { title: 'type', leaveOut: 4 },
              { title: 'url', leaveOut: 2, freeText: true },
              'status',
              { title: 'attempts', leaveOut: 5 },
              { title: 'last answer', freeText: true, leaveOut: 1 },
              'next attempt',
            ],
            deliveries.map((delivery) => [
              delivery.id,
              delivery.eventId,
              delivery.eventType,
              delivery.url,
              delivery.status,
              delivery.attempts,
              delivery.lastStatus ?? delivery.lastError,
              delivery.nextAttemptAt === null ? '' : times.short(new Date(delivery.nextAttemptAt).toISOString()),
            ]),
            this.io.stdout,
          ),
        );
      }
      if (deliveries.some((delivery) => delivery.status === 'dead')) this.note('Replay a dead letter with `svc sandbox deliveries replay <evt_…>`.');
      return deliveries.map((delivery) => ({ ...deliveryJson(delivery), attempt_log: store.attemptsOf(delivery.id).map(attemptJson) }));
    } finally {
      store.close();
    }
  }
}
