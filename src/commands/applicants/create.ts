import { ApiCommand } from '../../cli/api-command.js';
import type { ApplicantAnswer } from '../../api/types.js';
import { rememberApplicant } from '../../config/recent-applicants.js';
import { SvcError } from '../../core/errors.js';
import { applicantFlags, applicantInputFrom, travelWarnings } from '../../flags/applicant.js';
import { upsertApplicant } from '../../services/applicants.js';
import { askApplicant, lacksRequired } from '../../ui/applicant-questions.js';
import { renderApplicant } from '../../ui/applicants.js';
import { helpText } from '../../cli/help-text.js';

/** What `--json` prints. */
export type JsonResult = ApplicantAnswer;

export default class ApplicantsCreate extends ApiCommand<JsonResult> {
  static override summary = 'Create an applicant profile';
  static override description = helpText`
    From flags, a JSON file (--file) or both; flags override the file's fields. The applicant's fields are the
    service's to define (the specification does not show them): the file is sent as it is, and the service's
    answer, or its error, is shown. The flags name the sandbox's fields, where given names, surname, date of birth
    and nationality are required.

    Without --file, on a terminal, the required fields left out are asked for, then the optional ones if you wish;
    anywhere else the profile is sent as given, for the service to say what it lacks.
  `;

  static override examples = [
    '<%= config.bin %> applicants create',
    {
      description: 'Create an applicant from flags, with two earlier trips (one overstayed)',
      command:
        '<%= config.bin %> applicants create --given-names Ana --surname Silva --date-of-birth 1990-04-12 --nationality PT --travel DE:2023 --travel US:2019:overstayed',
    },
    '<%= config.bin %> applicants create --file profile.json --occupation Engineer --json',
  ];

  static override mutating = true;
  static override flags = applicantFlags;

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(ApplicantsCreate);
    const { client, connection } = await this.connect(flags);
    let input = await applicantInputFrom(flags);
    for (const warning of travelWarnings(flags.travel, this.clock.now())) this.warning(warning);
    if (input.id !== undefined) {
      throw new SvcError(
        'invalidInput',
        'invalid_input',
        `the profile file carries id ${JSON.stringify(input.id)}: creating an applicant takes no id (field id)`,
        'to change an existing applicant use `svc applicants update <id>`, or remove id from the file',
      );
    }
    // A --file is another service's profile as much as the sandbox's: it is sent as it is.
    if (flags.file === undefined && lacksRequired(input) && this.io.canPrompt) input = await askApplicant(this.prompter, input);
    const applicant = await upsertApplicant(client, input);
    if (typeof applicant.id === 'string') {
      this.made = { object: 'applicant', id: applicant.id };
      await rememberApplicant(this.paths.stateDir, connection.baseUrl.href, applicant.id);
    }
    this.log(renderApplicant(applicant, this.timeView(flags.utc), this.io.stdout));
    return applicant;
  }
}
