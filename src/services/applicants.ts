import type { ApiClient } from '../api/client.js';
import { dataOf } from '../api/data.js';
import type { Applicant, ApplicantInput } from '../api/types.js';

/** Creates an applicant, or updates the one whose `id` the input carries (fields left out are kept). */
export async function upsertApplicant(client: ApiClient, input: ApplicantInput): Promise<Applicant> {
  return dataOf(await client.POST('/v1/applicants', { body: input }));
}

export async function getApplicant(client: ApiClient, id: string): Promise<Applicant> {
  return dataOf(await client.GET('/v1/applicants/{id}', { params: { path: { id } } }));
}
