import { Flags } from '@oclif/core';
import { SvcError } from '../../core/errors.js';
import { instantFlag } from '../../flags/duration.js';
import { storeFlag } from '../../flags/webhook.js';
import { openEventRecords } from '../../webhooks/event-records.js';
import { WebhookCommand } from '../../cli/webhook-command.js';

/**
 * The service retries a delivery for 24 hours (spec part 6); an event id pruned sooner would let a
 * late retry through as a new event. An hour more covers the signature tolerance and clock skew.
 */
const KEEP_AT_LEAST_MS = 25 * 3_600_000;

/** What `--json` prints. */
export type JsonResult = { before: string; deleted: number; kept_not_forwarded: number; dry_run: boolean };

export default class WebhooksPrune extends WebhookCommand<JsonResult> {
  static override summary = 'Delete stored events received before a time';
  static override description = `Keeps the store from growing without end. Accepted events whose forwarding got no 2xx answer are kept (see \`svc webhooks events --not-forwarded\`), unless --include-not-forwarded. Events of the last 25 hours cannot be pruned: the service retries a delivery for 24 hours, and a retry of a pruned event would be taken as new. Safe while \`svc webhooks listen\` runs: rows go in small transactions.`;

  static override examples = [
    '<%= config.bin %> webhooks prune --before 30d',
    '<%= config.bin %> webhooks prune --before 2026-01-01T00:00:00Z --dry-run --json',
  ];

  static override flags = {
    store: storeFlag,
    before: instantFlag({ description: 'Delete what was received before this time: ISO 8601, or a duration ago (30d); 25h ago at the latest', required: true }),
    'include-not-forwarded': Flags.boolean({ description: 'Also delete accepted events whose application never took them', default: false }),
    'dry-run': Flags.boolean({ description: 'Only count what would be deleted', default: false }),
  };

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(WebhooksPrune);
    const latest = this.clock.now() - KEEP_AT_LEAST_MS;
    if (flags.before > latest) {
      throw new SvcError(
        'usage',
        'prune_too_recent',
        `--before ${new Date(flags.before).toISOString()} would prune events of the last 25 hours, whose retries the service may still send`,
        'give --before 25h or earlier (30d keeps a month)',
      );
    }
    const store = await openEventRecords(await this.webhookStore(flags.store, flags.profile));
    try {
      const before = new Date(flags.before).toISOString();
      const dryRun = flags['dry-run'];
      const result = await store.prune(flags.before, { includeNotForwarded: flags['include-not-forwarded'], dryRun });
      this.log(`${dryRun ? 'Would delete' : 'Deleted'} ${result.deleted} stored ${result.deleted === 1 ? 'delivery' : 'deliveries'} received before ${before}`);
      if (result.keptNotForwarded > 0) {
        this.note(
          `Kept ${result.keptNotForwarded} accepted ${result.keptNotForwarded === 1 ? 'event' : 'events'} the application never took: \`svc webhooks events --not-forwarded\` lists them, --include-not-forwarded deletes them too`,
        );
      }
      return { before, deleted: result.deleted, kept_not_forwarded: result.keptNotForwarded, dry_run: dryRun };
    } finally {
      await store.close();
    }
  }
}
