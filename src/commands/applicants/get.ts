import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { assertStated, STATED } from '../../spec/stated.js';
import type { Identified, ApplicantAnswer } from '../../api/types.js';
import { getApplicant } from '../../services/applicants.js';
import { renderApplicant } from '../../ui/applicants.js';

/** What `--json` prints. */
export type JsonResult = Identified<ApplicantAnswer>;

export default class ApplicantsGet extends ApiCommand<JsonResult> {
  static override summary = 'Show an applicant profile';
  static override examples = ['<%= config.bin %> applicants get app_123', '<%= config.bin %> applicants get app_123 --json'];

  static override args = {
    id: Args.string({ description: 'Applicant id (app_…)', required: true }),
  };

  public async run(): Promise<JsonResult> {
    const { args, flags } = await this.parse(ApplicantsGet);
    assertStated([['id', args.id, STATED.applicantId]]);
    const { client } = await this.connect(flags);
    const applicant = await getApplicant(client, args.id);
    this.log(renderApplicant(applicant, this.timeView(flags.utc), this.io.stdout));
    return applicant;
  }
}
