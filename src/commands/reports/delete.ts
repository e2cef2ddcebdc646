import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { assertStated, STATED } from '../../spec/stated.js';
import type { Answered, DeletionResult } from '../../api/types.js';
import { deleteReport } from '../../services/reports.js';
import { confirmOrRefuse } from '../../ui/confirm.js';

/** What `--json` prints. */
export type JsonResult = Answered<DeletionResult>;

export default class ReportsDelete extends ApiCommand<JsonResult> {
  static override summary = 'Delete a report and its sources, permanently';
  static override description =
    'Any success status is taken (200, 202, 204). With --json, the answer as it came, with "id" and "deleted": true added where it leaves them out: an answer without a body prints {"id": "rep_…", "deleted": true}.';
  static override examples = ['<%= config.bin %> reports delete rep_123', '<%= config.bin %> reports delete rep_123 --yes --json'];
  static override mutating = true;

  static override args = {
    id: Args.string({ description: 'Report id (rep_…)', required: true }),
  };

  static override flags = {
    yes: Flags.boolean({ char: 'y', description: 'Delete without asking (required when not on a terminal)' }),
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(ReportsDelete);
    assertStated([['id', args.id, STATED.reportId]]);
    const { client } = await this.connect(flags);
    await confirmOrRefuse(`Delete report ${args.id} and its sources? This cannot be undone.`, flags.yes, this.io, this.prompter);
    const result = await deleteReport(client, args.id);
    this.log(`Deleted report ${args.id}`);
    return result;
  }
}
