import { jsonOf, resourceIn } from '../api/answer.js';
import type { ApiClient } from '../api/client.js';
import type { ApplicantAnswer, ApplicantInput } from '../api/types.js';

/**
 * Creates an applicant, or updates the one whose `id` the input carries (fields left out are kept).
 * The fields are the service's to define (spec part 4: not shown): the input is sent as given, and
 * any success status is taken.
 */
export async function upsertApplicant(client: ApiClient, input: Record<string, unknown>): Promise<ApplicantAnswer> {
  // openapi.yaml's ApplicantInput is the sandbox's assumption; another service has fields of its own.
  const result = await client.POST('/v1/applicants', { body: input as ApplicantInput, parseAs: 'text' });
  return resourceIn(jsonOf(result, 'POST /v1/applicants'));
}

export async function getApplicant(client: ApiClient, id: string): Promise<ApplicantAnswer> {
  const result = await client.GET('/v1/applicants/{id}', { params: { path: { id } }, parseAs: 'text' });
  return resourceIn(jsonOf(result, `GET /v1/applicants/${id}`));
}
