import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { assertStated, STATED } from '../../spec/stated.js';
import type { Identified, ReportAnswer } from '../../api/types.js';
import { pageOutputFlag } from '../../flags/page.js';
import { getReport } from '../../services/reports.js';

/** What `--json` prints. */
export type JsonResult = Identified<ReportAnswer>;

export default class ReportsGet extends ApiCommand<JsonResult> {
  static override summary = 'Show a report with its full risk breakdown';
  static override description = `On a terminal the risk is drawn: the score on a 0-100 scale with its band in colour (where the service's score and band fit that scale, the sandbox's), and each criterion's weighted contribution as a bar. --web writes the report as a self-contained HTML page (no script, nothing loaded from anywhere, mode 0600) and opens it in the browser, as \`svc reports open\` does.`;
  static override examples = [
    '<%= config.bin %> reports get rep_123',
    '<%= config.bin %> reports get rep_123 --web',
    '<%= config.bin %> reports get rep_123 --json',
  ];

  static override args = {
    id: Args.string({ description: 'Report id (rep_…)', required: true }),
  };

  static override flags = {
    web: Flags.boolean({ description: 'Open the report as an HTML page in the browser instead' }),
    output: pageOutputFlag(['web']),
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(ReportsGet);
    assertStated([['id', args.id, STATED.reportId]]);
    const { client } = await this.connect(flags);
    const report = await getReport(client, args.id);
    if (flags.web) {
      const [{ showPage, shownPageLine }, { reportPage }] = await Promise.all([import('../../ui/open-page.js'), import('../../ui/report-page.js')]);
      this.note(shownPageLine(await showPage(reportPage(report, new Date(this.clock.now())), `${args.id}.html`, { output: flags.output, env: this.io.env })));
    } else if (!this.jsonEnabled()) {
      // The drawing of the risk (and the schema its bands come from) is loaded for a person only, not for --json.
      const { renderReport } = await import('../../ui/reports.js');
      this.log(renderReport(report, this.timeView(flags.utc), this.io.stdout));
    }
    return report;
  }
}
