import { jsonOf, resourceIn, fetchedResource } from '../api/answer.js';
import type { ApiClient } from '../api/client.js';
import type { Identified, ApplicantAnswer } from '../api/types.js';
import { listReports } from './reports.js';

/**
 * Creates an applicant, or updates the one whose `id` the input carries (fields left out are kept).
 * The fields are the service's to define (spec part 4: not shown): the input is sent as given, and
 * any success status is taken.
 */
export async function upsertApplicant(client: ApiClient, input: Record<string, unknown>): Promise<ApplicantAnswer> {
  // openapi.yaml's ApplicantInput is the sandbox's assumption; another service has fields of its own.
  const answer = await client.POST('/v1/applicants', { body: input });
  return resourceIn(jsonOf(answer, 'POST /v1/applicants'));
}

export async function getApplicant(client: ApiClient, id: string): Promise<Identified<ApplicantAnswer>> {
  const answer = await client.GET('/v1/applicants/{id}', { path: { id } });
  return fetchedResource(jsonOf(answer, `GET /v1/applicants/${id}`), `GET /v1/applicants/${id}`);
}

export interface KnownApplicant {
  id: string;
  /** Given names and surname, where the service answered with them in time. */
  name?: string;
}

/** How many applicants are offered, and how long their names may take to arrive. */
const OFFERED = 10;
const NAMES_WITHIN_MS = 3000;

function nameOf(applicant: ApplicantAnswer): string | undefined {
  const name = [applicant.given_names, applicant.surname].filter((part) => typeof part === 'string' && part !== '').join(' ');
  return name || undefined;
}

/**
 * The applicants of the workspace svc can offer, newest first (the specification lists no
 * applicants): those `remembered` (created by svc lately), then those of the reports on the first
 * page of GET /v1/reports. Each is named where GET /v1/applicants/{id} (openapi.yaml's) answers with
 * names within a few seconds; any failure leaves the bare id.
 */
export async function knownApplicants(client: ApiClient, remembered: string[]): Promise<KnownApplicant[]> {
  const fromReports = await listReports(client, {}).then(
    (page) => page.reports.map((report) => report.applicant_id).filter((id): id is string => typeof id === 'string'),
    () => [],
  );
  const ids = [...new Set([...remembered, ...fromReports])].slice(0, OFFERED);
  const names = new Map<string, string>();
  const lookups = ids.map((id) =>
    getApplicant(client, id).then(
      (applicant) => {
        const name = nameOf(applicant);
        if (name) names.set(id, name);
      },
      () => undefined,
    ),
  );
  await Promise.race([Promise.all(lookups), new Promise((resolve) => setTimeout(resolve, NAMES_WITHIN_MS).unref())]);
  return ids.map((id) => ({ id, name: names.get(id) }));
}
