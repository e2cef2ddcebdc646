import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { assertStated, STATED } from '../../spec/stated.js';
import type { ApplicantAnswer } from '../../api/types.js';
import { SvcError } from '../../core/errors.js';
import { applicantFlags, applicantInputFrom, travelWarnings } from '../../flags/applicant.js';
import { upsertApplicant } from '../../services/applicants.js';
import { renderApplicant } from '../../ui/applicants.js';
import { helpText } from '../../cli/help-text.js';

/** What `--json` prints. */
export type JsonResult = ApplicantAnswer;

export default class ApplicantsUpdate extends ApiCommand<JsonResult> {
  static override summary = 'Change fields of an applicant profile';
  static override description = helpText`
    Only the fields given change: from flags, a JSON file (--file) or both; flags override the file's fields. The
    fields are the service's to define: they are sent as given, with the applicant's id in the body (how the
    sandbox tells an update from a creation).
  `;

  static override examples = [
    { description: 'Record a new passport', command: '<%= config.bin %> applicants update app_123 --passport-number X1234567 --passport-expiry 2031-05-01' },
    '<%= config.bin %> applicants update app_123 --file changes.json --json',
  ];

  static override mutating = true;

  static override args = {
    id: Args.string({ description: 'Applicant id (app_…)', required: true }),
  };

  static override flags = applicantFlags;

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(ApplicantsUpdate);
    assertStated([['id', args.id, STATED.applicantId]]);
    const { client } = await this.connect(flags);
    const changes = await applicantInputFrom(flags);
    for (const warning of travelWarnings(flags.travel, this.clock.now())) this.warning(warning);
    const input = { ...changes, id: args.id };
    if (Object.keys(input).length === 1) {
      throw new SvcError(
        'usage',
        'nothing_to_update',
        `no field of applicant ${args.id} was given to change`,
        'pass the fields to change as flags (see --help) or in a JSON file with --file',
      );
    }
    const applicant = await upsertApplicant(client, input);
    this.log(renderApplicant(applicant, this.timeView(flags.utc), this.io.stdout));
    return applicant;
  }
}
