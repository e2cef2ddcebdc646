import type { OperationId } from '../../api/operations.js';
import type { Applicant, ApplicantInput } from '../../api/types.js';
import { type Answer, type HandlerContext, ok, type Handler } from '../app.js';
import { HttpError, readJson } from '../http.js';
import { newId, nowIso } from '../../core/ids.js';
import { validBody } from '../validation.js';

const OPTIONAL_FIELDS = ['passport_number', 'passport_expiry', 'occupation', 'employment_status', 'monthly_income', 'savings', 'currency'] as const;

/** POST /v1/applicants: creates an applicant, or with the `id` of an existing one updates the fields given. */
async function upsertApplicant({ app, request, workspaceId }: HandlerContext): Promise<Answer> {
  const { id, ...fields } = validBody<ApplicantInput>('ApplicantInput', await readJson(request));
  const now = nowIso();
  if (id !== undefined) {
    const existing = app.store.applicant(workspaceId, id);
    if (!existing) throw new HttpError(404, 'not_found', `no applicant ${id} in this workspace`);
    const updated: Applicant = { ...existing, ...fields, updated_at: now };
    app.store.saveApplicant(workspaceId, updated);
    return ok(updated);
  }
  const applicant: Applicant = {
    id: newId('app'),
    object: 'applicant',
    given_names: fields.given_names!,
    surname: fields.surname!,
    date_of_birth: fields.date_of_birth!,
    nationality: fields.nationality!,
    ...Object.fromEntries(OPTIONAL_FIELDS.map((name) => [name, fields[name] ?? null])),
    travel_history: fields.travel_history ?? [],
    previous_refusals: fields.previous_refusals ?? 0,
    created_at: now,
    updated_at: now,
  } as Applicant;
  app.store.saveApplicant(workspaceId, applicant);
  return ok(applicant, 201);
}

function getApplicant({ app, params, workspaceId }: HandlerContext): Answer {
  const applicant = app.store.applicant(workspaceId, params[0]!);
  if (!applicant) throw new HttpError(404, 'not_found', `no applicant ${params[0]} in this workspace`);
  return ok(applicant);
}

export const applicantHandlers = {
  upsertApplicant: { scope: 'write', handle: upsertApplicant },
  getApplicant: { scope: 'read', handle: getApplicant },
} satisfies Partial<Record<OperationId, Handler>>;
