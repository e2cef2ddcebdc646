import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { reportOutcome } from '../../api/report-outcome.js';
import { assertStated, STATED } from '../../spec/stated.js';
import type { Identified, ReportAnswer } from '../../api/types.js';
import { ExitCode } from '../../core/errors.js';
import { waitForReport } from '../../services/reports.js';
import { waitWithSpinner } from '../../ui/report-wait.js';
import { renderReport } from '../../ui/reports.js';
import { helpText } from '../../cli/help-text.js';

/** What `--json` prints. */
export type JsonResult = Identified<ReportAnswer>;

export default class ReportsWait extends ApiCommand<JsonResult> {
  static override summary = 'Wait until a report is completed or failed, then show it';
  static override description = helpText`
    Polls the report, 0.5 s apart at first and up to 5 s apart, until its status is completed or it has failed: a
    status that reads as a failure (failed, error, rejected, cancelled, …) or an error object. Any other status is
    waited on, up to --wait-timeout.

    Exit code 11 when the report failed, 12 when --wait-timeout passes first (the report may still finish).
  `;

  static override examples = ['<%= config.bin %> reports wait rep_123', '<%= config.bin %> reports wait rep_123 --wait-timeout 600 --json'];

  static override args = {
    id: Args.string({ description: 'Report id (rep_…)', required: true }),
  };

  static override flags = {
    'wait-timeout': Flags.integer({ description: 'Seconds to wait', default: 120, min: 1 }),
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(ReportsWait);
    assertStated([['id', args.id, STATED.reportId]]);
    const { client } = await this.connect(flags);
    const report = await waitWithSpinner(this.io, args.id, flags['wait-timeout'], (onPoll) =>
      waitForReport(client, args.id, { timeoutMs: flags['wait-timeout'] * 1000, onPoll, clock: this.clock }),
    );
    this.log(renderReport(report, this.timeView(flags.utc), this.io.stdout));
    if (reportOutcome(report) === 'failed') this.exitCode = ExitCode.reportFailed;
    return report;
  }
}
