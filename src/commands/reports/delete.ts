import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../api-command.js';
import type { DeletionResult } from '../../api/types.js';
import { deleteReport } from '../../services/reports.js';
import { confirmOrRefuse } from '../../ui/confirm.js';

export default class ReportsDelete extends ApiCommand {
  static override summary = 'Delete a report and its sources, permanently';
  static override examples = ['<%= config.bin %> reports delete rep_123', '<%= config.bin %> reports delete rep_123 --yes --json'];
  static override mutating = true;

  static override args = {
    id: Args.string({ description: 'Report id (rep_…)', required: true }),
  };

  static override flags = {
    yes: Flags.boolean({ char: 'y', description: 'Delete without asking (required when not on a terminal)' }),
  };

  public async run(): Promise<DeletionResult> {
    const { args, flags } = await this.parse(ReportsDelete);
    const { session } = await this.connect(flags);
    await confirmOrRefuse(`Delete report ${args.id} and its sources? This cannot be undone.`, flags.yes);
    const result = await deleteReport(session.client, args.id);
    this.log(`Deleted report ${result.id}`);
    return result;
  }
}
