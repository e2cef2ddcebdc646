import type { ReportAnswer } from '../api/types.js';
import { BaseCommand } from '../cli/base-command.js';
import { runDemo } from '../demo/demo.js';
import { renderReport } from '../ui/reports.js';
import { hangingLine } from '../ui/table.js';

/** What `--json` prints. */
export type JsonResult = ReportAnswer;

export default class Demo extends BaseCommand<JsonResult> {
  static override summary = 'Run the whole API once on an embedded sandbox: applicant to verified webhook';
  static override description =
    'Starts the sandbox in this process on a free port with a webhook subscriber beside it, creates an applicant, uploads a sample passport, creates a report, waits for its report.completed webhook and verifies the signature, then prints the report as `svc reports get` does. Everything it started is stopped, and its temporary files removed, before it exits.';

  static override examples = ['<%= config.bin %> demo', '<%= config.bin %> demo --json'];

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(Demo);
    const report = await runDemo(({ step, detail }) => this.note(hangingLine(`✓ ${step.padEnd(9)} `, detail, this.io.stderr)));
    this.log(renderReport(report, this.timeView(flags.utc), this.io.stdout));
    return report;
  }
}
