import { Flags } from '@oclif/core';
import { ApiCommand } from '../../api-command.js';
import type { ReportList } from '../../api/types.js';
import { listAllReports, listReports } from '../../services/reports.js';
import { renderReportRows } from '../../ui/reports.js';

export default class ReportsList extends ApiCommand {
  static override summary = 'List the reports of the workspace, newest first';
  static override examples = [
    '<%= config.bin %> reports list',
    '<%= config.bin %> reports list --status completed --applicant app_123',
    '<%= config.bin %> reports list --all --json',
  ];

  static override flags = {
    status: Flags.string({ description: 'Only reports in this status', options: ['queued', 'processing', 'completed', 'failed'] }),
    applicant: Flags.string({ description: 'Only reports of this applicant (app_…)' }),
    limit: Flags.integer({ description: 'Reports per page', min: 1, max: 100, default: 20 }),
    'starting-after': Flags.string({ description: 'Start after this report id (the cursor of the previous page)' }),
    all: Flags.boolean({ description: 'Follow the pages to the end' }),
  };

  public async run(): Promise<ReportList> {
    const { flags } = await this.parse(ReportsList);
    const { session } = await this.connect(flags);
    const query = {
      limit: flags.limit,
      status: flags.status as ReportList['data'][number]['status'] | undefined,
      applicant_id: flags.applicant,
      starting_after: flags['starting-after'],
    };
    const list: ReportList = flags.all
      ? { object: 'list', data: await listAllReports(session.client, query), has_more: false }
      : await listReports(session.client, query);
    if (list.data.length === 0) this.note('No reports.');
    else this.log(renderReportRows(list.data));
    if (list.has_more) this.note(`More reports follow: --starting-after ${list.data.at(-1)?.id}, or --all.`);
    return list;
  }
}
