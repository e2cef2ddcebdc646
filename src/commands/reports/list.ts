import { Flags } from '@oclif/core';
import { ApiCommand } from '../../api-command.js';
import type { PagingStop } from '../../api/paging.js';
import type { ReportAnswer } from '../../api/types.js';
import { maxPagesFlag } from '../../flags/max-pages.js';
import { listAllReports, listReports, type ReportsQuery } from '../../services/reports.js';
import { pagingStopWarning } from '../../ui/paging.js';
import { renderReportRows } from '../../ui/reports.js';
import { terminalText } from '../../ui/terminal-text.js';
import { timeView } from '../../ui/time.js';
import { helpText } from '../../help-text.js';

/** `--json`: the reports read, and whether more follow (null when svc cannot tell); with --all, `stopped` when paging stopped before the end. */
interface ReportListing {
  object: 'list';
  data: ReportAnswer[];
  has_more: boolean | null;
  stopped?: PagingStop;
}

/** What `--json` prints. */
export type JsonResult = ReportListing;

export default class ReportsList extends ApiCommand {
  static override summary = 'List the reports of the workspace';
  static override description = helpText`
    The reports are read wherever the answer holds them (a bare array, "data", or its one array of resources), and
    --all follows the next page the answer offers: a Link header, links.next, has_more, a next cursor or page
    numbers. When svc cannot tell whether more follow, it says so on stderr, and --json has "has_more": null.
    --all stops before the end at a page already read, a page that brings no report not seen before, and
    after --max-pages pages; it warns on stderr, and --json has "has_more": null and "stopped": {reason, message}.

    Query parameters are sent only when asked for: the specification shows none, and a service may refuse those it
    does not know.
  `;

  static override examples = [
    '<%= config.bin %> reports list',
    '<%= config.bin %> reports list --status completed --applicant app_123',
    '<%= config.bin %> reports list --all --json',
  ];

  static override flags = {
    status: Flags.string({ description: 'Only reports in this status (sent as status=)' }),
    applicant: Flags.string({ description: 'Only reports of this applicant, app_… (sent as applicant_id=)' }),
    limit: Flags.integer({ description: 'Reports per page (sent as limit=; the service chooses when left out)', min: 1 }),
    'starting-after': Flags.string({ description: 'Start after this report id (sent as starting_after=, the cursor of services that page by the last id)' }),
    all: Flags.boolean({ description: 'Follow the pages to the end' }),
    'max-pages': maxPagesFlag,
  };

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(ReportsList);
    const { client } = await this.connect(flags);
    const query: ReportsQuery = { limit: flags.limit, status: flags.status, applicant_id: flags.applicant, starting_after: flags['starting-after'] };
    let listing: ReportListing;
    if (flags.all) {
      const { reports, stopped } = await listAllReports(client, query, flags['max-pages']);
      listing = { object: 'list', data: reports, has_more: stopped ? null : false, ...(stopped && { stopped }) };
      this.show(reports, flags.utc);
      if (stopped) this.warning(pagingStopWarning(stopped, 'reports'));
    } else {
      const page = await listReports(client, query);
      listing = { object: 'list', data: page.reports, has_more: page.next.kind === 'unknown' ? null : page.next.kind === 'next' };
      this.show(page.reports, flags.utc);
      if (page.next.kind === 'next') {
        const after = page.next.url.searchParams.get('starting_after');
        this.note(`More reports follow: ${after ? `--starting-after ${terminalText(after)}, or ` : ''}--all.`);
      }
      if (page.next.kind === 'unknown') this.note('svc cannot tell whether more reports follow: the answer shows no paging it recognises.');
    }
    return listing;
  }

  private show(reports: ReportAnswer[], utc: boolean): void {
    if (reports.length === 0) this.note('No reports.');
    else this.log(renderReportRows(reports, timeView(utc, this.io.stdout), this.io.stdout));
  }
}
