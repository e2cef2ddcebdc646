import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { chooseApplicant } from '../../cli/applicant-choice.js';
import { idOf } from '../../api/answer.js';
import { VISA_TYPES } from '../../spec/enums.js';
import { reportOutcome } from '../../api/report-outcome.js';
import type { ApiClient } from '../../api/client.js';
import { countryCode, trimmed } from '../../spec/normalise.js';
import { answerCheck, assertStated, STATED } from '../../spec/stated.js';
import type { Identified, ReportAnswer } from '../../api/types.js';
import { ApiError, ExitCode } from '../../core/errors.js';
import { createReport, type ReportRequest, waitForReport } from '../../services/reports.js';
import { chooseOrType, leftOutWarning } from '../../ui/ask.js';
import type { AnswerCheck } from '../../ui/prompter.js';
import { waitWithSpinner } from '../../ui/report-wait.js';
import { renderReport } from '../../ui/reports.js';
import { terminalText } from '../../ui/terminal-text.js';
import { shellWord } from '../../ui/shell-word.js';
import { helpText } from '../../cli/help-text.js';

const FIELDS = { applicant: 'applicant_id', destination: 'destination', 'visa-type': 'visa_type', purpose: 'purpose' } as const;

/** How each field is asked again after a refusal. */
const QUESTIONS: Record<(typeof FIELDS)[keyof typeof FIELDS], { label: string; validate: AnswerCheck }> = {
  applicant_id: { label: 'Applicant id (app_…):', validate: answerCheck(STATED.applicantId) },
  destination: {
    label: 'Destination, two letters (DE, US, …):',
    validate: (answer) => STATED.destination.test(countryCode(answer)!) || 'two letters, like FR or US',
  },
  visa_type: { label: 'Visa type:', validate: answerCheck(STATED.visaType) },
  purpose: { label: 'Purpose of travel:', validate: (answer) => answer.trim() !== '' || 'say what the trip is for, in a few words' },
};

/** What `--json` prints. */
export type JsonResult = Identified<ReportAnswer>;

/** The `svc reports create` command line that sends `input` again. */
function resendCommand(input: ReportRequest): string {
  const flags = Object.entries(FIELDS).flatMap(([flag, field]) => (input[field] === undefined ? [] : [`--${flag}`, shellWord(input[field])]));
  return ['svc', 'reports', 'create', ...flags].join(' ');
}

/** Refuses, before sending, a field that breaks a rule the specification states. */
function assertStatedFields(request: Partial<ReportRequest>): void {
  assertStated([
    ['applicant_id', request.applicant_id, STATED.applicantId],
    ['destination', request.destination, STATED.destination],
    ['visa_type', request.visa_type, STATED.visaType],
  ]);
}

export default class ReportsCreate extends ApiCommand<JsonResult> {
  static override summary = 'Create a report for an applicant, a destination, a visa type and a purpose';
  static override description = helpText`
    The report is analysed asynchronously; --wait waits until it is completed or failed (exit code 11 when it
    failed, 12 when --wait-timeout passes first).

    Only what the specification states is checked before sending: the app_ prefix, a destination of two uppercase
    letters, a snake_case visa type. Which visa types and purposes are allowed is the service's to say, and its
    answer is shown.

    A destination in small letters is taken in capitals (fr is FR). Flags left out are asked for on a terminal,
    the applicant chosen among those svc created lately and those of the latest reports, or created on the spot;
    anywhere else they are left out of the request, with a warning.
  `;

  static override examples = [
    '<%= config.bin %> reports create',
    {
      description: 'Create a report without a prompt and wait for its outcome',
      command: '<%= config.bin %> reports create --applicant app_123 --destination DE --visa-type tourist --purpose "Two weeks in Berlin" --wait',
    },
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

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(ReportsCreate);
    const { client, connection } = await this.connect(flags);
    const given = { ...flags, destination: countryCode(flags.destination) };
    // The flags are checked before anything is asked or warned of: a refused value means nothing is sent.
    assertStatedFields({ applicant_id: given.applicant, destination: given.destination, visa_type: given['visa-type'] });
    const input = await this.requestFrom(given, client, connection.baseUrl.href);
    assertStatedFields(input);
    const asked = Object.keys(FIELDS).some((name) => flags[name as keyof typeof FIELDS] === undefined);
    let report = await this.sendUntilAccepted(client, input, asked && this.io.canPrompt);
    if (typeof report.id === 'string') this.made = { object: 'report', id: report.id };
    if (flags.wait) {
      const id = idOf(report, 'POST /v1/reports');
      report = await waitWithSpinner(this.io, id, flags['wait-timeout'], (onPoll) =>
        waitForReport(client, id, { timeoutMs: flags['wait-timeout'] * 1000, onPoll, clock: this.clock }),
      );
    }
    this.log(renderReport(report, this.timeView(flags.utc), this.io.stdout));
    if (reportOutcome(report) === 'failed') this.exitCode = ExitCode.reportFailed;
    return report;
  }

  /**
   * Sends the report. Answers typed at the prompts are not lost to a refusal: the person may edit the
   * refused answers and send again, or leave with the command that sends them again.
   */
  private async sendUntilAccepted(client: ApiClient, first: ReportRequest, offerToEdit: boolean): Promise<JsonResult> {
    let input = first;
    for (;;) {
      try {
        return await createReport(client, input);
      } catch (error) {
        if (!(error instanceof ApiError) || error.kind !== 'invalidInput' || !offerToEdit) throw error;
        this.note(`The service refused the report: ${terminalText(error.message)}`);
        if (!(await this.prompter.confirm('Edit and send again?', true))) {
          this.note(`Your answers, to correct and send again:\n  ${terminalText(resendCommand(input))}`);
          throw error;
        }
        input = await this.edited(input, error.field);
      }
    }
  }

  /** The refused answer asked again, or every answer when the service named no field of the request; the earlier answers are on the line to edit. */
  private async edited(input: ReportRequest, refusedField: string | undefined): Promise<ReportRequest> {
    const fields = Object.values(FIELDS);
    const refused = fields.find((field) => field === refusedField);
    const edited = { ...input };
    for (const field of refused ? [refused] : fields) {
      const { label, validate } = QUESTIONS[field];
      const answer = trimmed(await this.prompter.input(label, { answer: input[field] ?? '', validate }));
      edited[field] = field === 'destination' ? countryCode(answer) : answer;
    }
    return edited;
  }

  /** The request from the flags; on a terminal, the flags left out are asked for. */
  private async requestFrom(flags: Partial<Record<keyof typeof FIELDS, string>>, client: ApiClient, baseUrl: string): Promise<ReportRequest> {
    const missing = (Object.keys(FIELDS) as Array<keyof typeof FIELDS>).filter((name) => flags[name] === undefined);
    if (!this.io.canPrompt) {
      const warning = leftOutWarning(missing);
      if (warning) this.warning(warning);
      return Object.fromEntries(Object.entries(FIELDS).map(([flag, field]) => [field, flags[flag as keyof typeof FIELDS]]));
    }
    const ask = this.prompter;
    return {
      applicant_id: flags.applicant ?? (await chooseApplicant(this.prompter, (line) => this.note(line), client, { baseUrl, stateDir: this.paths.stateDir })),
      destination: flags.destination ?? countryCode(await ask.input(QUESTIONS.destination.label, { validate: QUESTIONS.destination.validate })),
      visa_type: flags['visa-type'] ?? (await chooseOrType(ask, QUESTIONS.visa_type.label, VISA_TYPES, QUESTIONS.visa_type.validate)),
      purpose: flags.purpose ?? trimmed(await ask.input(QUESTIONS.purpose.label, { validate: QUESTIONS.purpose.validate })),
    };
  }
}
