import { Flags } from '@oclif/core';
import { ApiCommand } from '../../api-command.js';
import { idOf } from '../../api/answer.js';
import { VISA_TYPES } from '../../api/enums.js';
import { reportOutcome } from '../../api/report-outcome.js';
import { answerCheck, assertStated, STATED } from '../../api/stated.js';
import type { ReportAnswer } from '../../api/types.js';
import { ExitCode } from '../../errors.js';
import { createReport, type ReportRequest } from '../../services/reports.js';
import { chooseOrType, leftOutWarning } from '../../ui/ask.js';
import { canPrompt, inquirerPrompter } from '../../ui/prompter.js';
import { waitWithSpinner } from '../../ui/report-wait.js';
import { renderReport } from '../../ui/reports.js';
import { timeView } from '../../ui/time.js';

const FIELDS = { applicant: 'applicant_id', destination: 'destination', 'visa-type': 'visa_type', purpose: 'purpose' } as const;

export default class ReportsCreate extends ApiCommand {
  static override summary = 'Create a report for an applicant, a destination, a visa type and a purpose';
  static override description = `The report is analysed asynchronously; --wait waits until it is completed or failed (exit code 11 when it failed, 12 when --wait-timeout passes first).
Only what the specification states is checked before sending: the app_ prefix, a destination of two uppercase letters, a snake_case visa type. Which visa types and purposes are allowed is the service's to say, and its answer is shown.
Flags left out are asked for on a terminal; anywhere else they are left out of the request, with a warning.`;

  static override examples = [
    '<%= config.bin %> reports create',
    '<%= config.bin %> reports create --applicant app_123 --destination DE --visa-type tourist --purpose "Two weeks in Berlin" --wait',
  ];

  static override mutating = true;

  static override flags = {
    applicant: Flags.string({ description: 'Applicant id (app_…)' }),
    destination: Flags.string({ description: 'Destination country, two uppercase letters (ISO 3166-1 alpha-2)' }),
    'visa-type': Flags.string({ description: `Visa type, snake_case; the service says which it offers (the sandbox: ${VISA_TYPES.join(', ')})` }),
    purpose: Flags.string({ description: 'Purpose of travel, free text' }),
    wait: Flags.boolean({ description: 'Wait until the report is completed or failed, then show it' }),
    'wait-timeout': Flags.integer({ description: 'Seconds to wait with --wait', default: 120, min: 1 }),
  };

  public async run(): Promise<ReportAnswer> {
    const { flags } = await this.parse(ReportsCreate);
    const { session } = await this.connect(flags);
    const input = await this.requestFrom(flags);
    assertStated([
      ['applicant_id', input.applicant_id, STATED.applicantId],
      ['destination', input.destination, STATED.destination],
      ['visa_type', input.visa_type, STATED.visaType],
    ]);
    let report = await createReport(session.client, input);
    if (flags.wait) report = await waitWithSpinner(session.client, idOf(report, 'POST /v1/reports'), flags['wait-timeout']);
    this.log(renderReport(report, timeView(flags.utc)));
    if (reportOutcome(report) === 'failed') process.exitCode = ExitCode.reportFailed;
    return report;
  }

  /** The request from the flags; on a terminal, the flags left out are asked for. */
  private async requestFrom(flags: Partial<Record<keyof typeof FIELDS, string>>): Promise<ReportRequest> {
    const missing = (Object.keys(FIELDS) as Array<keyof typeof FIELDS>).filter((name) => flags[name] === undefined);
    if (!canPrompt()) {
      const warning = leftOutWarning(missing);
      if (warning) this.warning(warning);
      return Object.fromEntries(Object.entries(FIELDS).map(([flag, field]) => [field, flags[flag as keyof typeof FIELDS]]));
    }
    const ask = inquirerPrompter;
    return {
      applicant_id: flags.applicant ?? (await ask.input('Applicant id (app_…):', { validate: answerCheck(STATED.applicantId) })),
      destination: flags.destination ?? (await ask.input('Destination, two uppercase letters (DE, US, …):', { validate: answerCheck(STATED.destination) })),
      visa_type: flags['visa-type'] ?? (await chooseOrType(ask, 'Visa type:', VISA_TYPES, answerCheck(STATED.visaType))),
      purpose: flags.purpose ?? (await ask.input('Purpose of travel:')),
    };
  }
}
