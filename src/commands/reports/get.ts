import { Args } from '@oclif/core';
import { ApiCommand } from '../../api-command.js';
import { assertStated, STATED } from '../../api/stated.js';
import type { ReportAnswer } from '../../api/types.js';
import { getReport } from '../../services/reports.js';
import { renderReport } from '../../ui/reports.js';
import { timeView } from '../../ui/time.js';

export default class ReportsGet extends ApiCommand {
  static override summary = 'Show a report with its full risk breakdown';
  static override examples = ['<%= config.bin %> reports get rep_123', '<%= config.bin %> reports get rep_123 --json'];

  static override args = {
    id: Args.string({ description: 'Report id (rep_…)', required: true }),
  };

  public async run(): Promise<ReportAnswer> {
    const { args, flags } = await this.parse(ReportsGet);
    assertStated([['id', args.id, STATED.reportId]]);
    const { session } = await this.connect(flags);
    const report = await getReport(session.client, args.id);
    this.log(renderReport(report, timeView(flags.utc)));
    return report;
  }
}
