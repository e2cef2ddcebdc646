import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { assertStated, STATED } from '../../spec/stated.js';
import type { ReportAnswer } from '../../api/types.js';
import { pageOutputFlag } from '../../flags/page.js';
import { getReport } from '../../services/reports.js';
import { showPage, shownPageLine } from '../../ui/open-page.js';
import { reportPage } from '../../ui/report-page.js';
import { helpText } from '../../cli/help-text.js';

/** What `--json` prints: the page written (its path, and whether the system's opener took it) and the report it shows. */
export type JsonResult = { path: string; opened: boolean; report: ReportAnswer };

export default class ReportsOpen extends ApiCommand<JsonResult> {
  static override summary = 'Open a report as an HTML page in the browser (reports get --web)';
  static override description = helpText`
    The page is self-contained: the risk score on a 0-100 scale and each criterion's weighted contribution as
    inline SVG charts, the fields, the details and the recommendations, with no script and a policy that lets it
    load nothing from anywhere. It is written with mode 0600 to a new private temporary directory (or --output)
    and opened with the system's opener (xdg-open, open, start); where there is none, its path is printed. --json
    prints {"path", "opened", "report"}: where the page was written, whether it was opened, and the report.
  `;
  static override examples = ['<%= config.bin %> reports open rep_123', '<%= config.bin %> reports open rep_123 --output report.html'];

  static override args = {
    id: Args.string({ description: 'Report id (rep_…)', required: true }),
  };

  static override flags = { output: pageOutputFlag() };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(ReportsOpen);
    assertStated([['id', args.id, STATED.reportId]]);
    const { client } = await this.connect(flags);
    const report = await getReport(client, args.id);
    const page = await showPage(reportPage(report, new Date(this.clock.now())), `${args.id}.html`, { output: flags.output, env: this.io.env });
    this.note(shownPageLine(page));
    return { ...page, report };
  }
}
