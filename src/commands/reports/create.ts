import { Flags } from '@oclif/core';
import { ApiCommand } from '../../api-command.js';
import { VISA_TYPES } from '../../api/enums.js';
import type { Report, ReportCreate } from '../../api/types.js';
import { answerCheck, assertValid } from '../../api/validate.js';
import { ExitCode } from '../../errors.js';
import { createReport } from '../../services/reports.js';
import { refuseMissingFlags } from '../../ui/ask.js';
import { inquirerPrompter } from '../../ui/prompter.js';
import { waitWithSpinner } from '../../ui/report-wait.js';
import { renderReport } from '../../ui/reports.js';

export default class ReportsCreate extends ApiCommand {
  static override summary = 'Create a report for an applicant, a destination, a visa type and a purpose';
  static override description = `The report starts queued and is analysed asynchronously; --wait waits until it is completed or failed (exit code 11 when it failed, 12 when --wait-timeout passes first).
Flags left out are asked for on a terminal; anywhere else they are required.`;

  static override examples = [
    '<%= config.bin %> reports create',
    '<%= config.bin %> reports create --applicant app_123 --destination DE --visa-type tourist --purpose "Two weeks in Berlin" --wait',
  ];

  static override mutating = true;

  static override flags = {
    applicant: Flags.string({ description: 'Applicant id (app_…)' }),
    destination: Flags.string({ description: 'Destination country, two uppercase letters (ISO 3166-1 alpha-2)' }),
    'visa-type': Flags.option({ description: 'Visa type', options: VISA_TYPES })(),
    purpose: Flags.string({ description: 'Purpose of travel, free text (1-500 characters)' }),
    wait: Flags.boolean({ description: 'Wait until the report is completed or failed, then show it' }),
    'wait-timeout': Flags.integer({ description: 'Seconds to wait with --wait', default: 120, min: 1 }),
  };

  public async run(): Promise<Report> {
    const { flags } = await this.parse(ReportsCreate);
    const { session } = await this.connect(flags);
    const input = await this.askForMissing(flags);
    assertValid<ReportCreate>('ReportCreate', input);
    let report = await createReport(session.client, input);
    if (flags.wait) report = await waitWithSpinner(session.client, report.id, flags['wait-timeout']);
    this.log(renderReport(report));
    if (report.status === 'failed') process.exitCode = ExitCode.reportFailed;
    return report;
  }

  private async askForMissing(flags: { applicant?: string; destination?: string; 'visa-type'?: string; purpose?: string }): Promise<Record<keyof ReportCreate, string>> {
    refuseMissingFlags(
      (['applicant', 'destination', 'visa-type', 'purpose'] as const).filter((name) => flags[name] === undefined),
      'svc reports create --applicant app_123 --destination DE --visa-type tourist --purpose "Two weeks in Berlin"',
    );
    const ask = inquirerPrompter;
    return {
      applicant_id: flags.applicant ?? (await ask.input('Applicant id (app_…):', { validate: answerCheck('ReportCreate', 'applicant_id') })),
      destination: flags.destination ?? (await ask.input('Destination, two uppercase letters (DE, US, …):', { validate: answerCheck('ReportCreate', 'destination') })),
      visa_type: flags['visa-type'] ?? (await ask.select('Visa type:', VISA_TYPES)),
      purpose: flags.purpose ?? (await ask.input('Purpose of travel:', { validate: answerCheck('ReportCreate', 'purpose') })),
    };
  }
}
