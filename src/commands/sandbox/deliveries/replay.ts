import { Args, Flags } from '@oclif/core';
import { SandboxCommand } from '../../../cli/sandbox-command.js';
import { replayEvent } from '../../../sandbox/dispatcher.js';
import { openSandboxStore } from '../../../sandbox/profile.js';
import { type DeliveryJson, deliveryJson } from '../../../ui/sandbox-deliveries.js';
import { assertStated, STATED } from '../../../spec/stated.js';
import { ExitCode } from '../../../core/errors.js';
import { terminalText } from '../../../ui/terminal-text.js';

/** What `--json` prints. */
export type JsonResult = DeliveryJson[];

export default class SandboxDeliveriesReplay extends SandboxCommand<JsonResult> {
  static override summary = 'Send a stored event again, as the dashboard replays a dead letter (part 6)';
  static override description =
    'Makes a new delivery of the event to each URL it was delivered to (or to --to) and attempts it at once. If that attempt fails, the running sandbox retries it on the schedule of part 6.';

  static override examples = [
    '<%= config.bin %> sandbox deliveries replay evt_123',
    '<%= config.bin %> sandbox deliveries replay evt_123 --to http://127.0.0.1:4000/hooks',
  ];

  static override args = {
    event: Args.string({ description: 'Event id (evt_…)', required: true }),
  };

  static override flags = {
    to: Flags.string({ description: 'Deliver to this URL instead of the original subscribers' }),
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(SandboxDeliveriesReplay);
    assertStated([['event', args.event, STATED.eventId]]);
    const store = openSandboxStore(this.sandboxDir(flags['data-dir']));
    try {
      const deliveries = await replayEvent(store, args.event, await this.network(), flags.to);
      for (const delivery of deliveries) {
        this.note(
          terminalText(
            `${delivery.eventId} → ${delivery.url}: ${delivery.status === 'delivered' ? `delivered (${delivery.lastStatus})` : `failed (${delivery.lastStatus ?? delivery.lastError}); the sandbox retries it`}`,
          ),
        );
      }
      const failed = deliveries.filter((delivery) => delivery.status !== 'delivered');
      // As webhooks replay and trigger: no answer at all is the network's failure, any other the receiver's.
      if (failed.some((delivery) => delivery.lastStatus === null)) this.exitCode = ExitCode.network;
      else if (failed.length > 0) this.exitCode = ExitCode.verificationFailed;
      return deliveries.map(deliveryJson);
    } finally {
      store.close();
    }
  }
}
