import { idOf } from '../api/answer.js';
import type { ApiClient } from '../api/client.js';
import { trimmed } from '../spec/normalise.js';
import { STATED } from '../spec/stated.js';
import { recentApplicants, rememberApplicant } from '../config/recent-applicants.js';
import { knownApplicants, upsertApplicant } from '../services/applicants.js';
import { askApplicant } from '../ui/applicant-questions.js';
import type { Prompter } from '../ui/prompter.js';
import { terminalText } from '../ui/terminal-text.js';

const CREATE_APPLICANT = 'Create a new applicant now';
const TYPE_APPLICANT_ID = 'Type an applicant id';

/**
 * The applicant picker of `reports create` and `documents upload` at a terminal: one the workspace
 * is known to have (those svc created lately, those of the latest reports), a new one made now, or
 * an id typed in. `note` tells the person of an applicant made on the spot; `service` is the client's
 * base URL and the state directory where svc remembers the applicants it created there.
 */
export async function chooseApplicant(
  prompter: Prompter,
  note: (line: string) => void,
  client: ApiClient,
  service: { baseUrl: string; stateDir: string },
): Promise<string> {
  const known = await knownApplicants(client, await recentApplicants(service.stateDir, service.baseUrl));
  const labels = known.map(({ id, name }) => terminalText(name ? `${name} (${id})` : id));
  const choice = await prompter.select('Applicant:', [...labels, CREATE_APPLICANT, TYPE_APPLICANT_ID]);
  if (choice === TYPE_APPLICANT_ID)
    return trimmed(
      await prompter.input('Applicant id (app_…):', {
        validate: (answer) => STATED.applicantId.test(answer.trim()) || 'an id starting with app_, like app_4Jd92kQz',
      }),
    )!;
  if (choice !== CREATE_APPLICANT) return known[labels.indexOf(choice)]!.id;
  const applicant = await upsertApplicant(client, await askApplicant(prompter, {}));
  const id = idOf(applicant, 'POST /v1/applicants');
  await rememberApplicant(service.stateDir, service.baseUrl, id);
  note(`Created applicant ${terminalText(id)}.`);
  return id;
}
