import type { OperationId } from '../../api/operations.js';
import { queuedReport } from '../../api/resources.js';
import type { ReportCreate } from '../../api/types.js';
import { type Answer, type HandlerContext, ok, type Handler } from '../app.js';
import { HttpError, readJson } from '../http.js';
import { newId, nowIso } from '../../core/ids.js';
import { assertValidParam, validBody } from '../validation.js';

const STATUSES = new Set(['queued', 'processing', 'completed', 'failed']);

function notFound(id: string): HttpError {
  return new HttpError(404, 'not_found', `no report ${id} in this workspace`);
}

function secondsToNextMonth(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.ceil((next - now.getTime()) / 1000);
}

async function createReport({ app, request, workspaceId, caller }: HandlerContext): Promise<Answer> {
  const body = validBody<ReportCreate>('ReportCreate', await readJson(request));
  if (!app.store.applicant(workspaceId, body.applicant_id)) {
    throw new HttpError(422, 'invalid_request', `no applicant ${body.applicant_id} in this workspace`, 'applicant_id');
  }
  const now = new Date();
  const month = now.toISOString().slice(0, 7);
  // Part 5: test keys are free; live keys consume the plan's monthly quota (part 8).
  const counted = caller.key.environment === 'live';
  if (counted && app.store.reportsThisMonth(workspaceId, month) >= app.monthlyQuota) {
    const retryAfter = secondsToNextMonth(now);
    throw new HttpError(429, 'quota_exceeded', `the ${app.monthlyQuota} reports of this month's quota are used up`, undefined, {
      'retry-after': String(retryAfter),
    });
  }
  const report = queuedReport(newId('rep'), body, nowIso(now.getTime()));
  app.store.transaction(() => {
    app.store.insertReport(workspaceId, report);
    if (counted) app.store.countReport(workspaceId, month);
    app.events.record(workspaceId, 'report.created', report);
  });
  app.dispatch();
  app.processing.scheduleReport(workspaceId, report.id);
  return ok(report, 201);
}

function getReport({ app, params, workspaceId }: HandlerContext): Answer {
  const body = app.store.reportJson(workspaceId, params[0]!);
  if (body === undefined) throw notFound(params[0]!);
  return ok(body);
}

function listReports({ app, query, workspaceId }: HandlerContext): Answer {
  const limitText = query.get('limit') ?? '20';
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1 || limit > 100) throw new HttpError(422, 'invalid_request', 'limit must be an integer from 1 to 100', 'limit');
  const status = query.get('status') ?? undefined;
  if (status !== undefined && !STATUSES.has(status)) throw new HttpError(422, 'invalid_request', `status must be one of ${[...STATUSES].join(', ')}`, 'status');
  const applicantId = query.get('applicant_id') ?? undefined;
  if (applicantId !== undefined) assertValidParam('ApplicantId', 'applicant_id', applicantId);
  const cursor = query.get('starting_after');
  let beforeSeq: number | undefined;
  if (cursor !== null) {
    beforeSeq = app.store.reportSeq(workspaceId, cursor);
    if (beforeSeq === undefined) throw new HttpError(422, 'invalid_request', `starting_after names no report of this workspace: ${cursor}`, 'starting_after');
  }
  const page = app.store.reportsOf(workspaceId, { limit, beforeSeq, status, applicantId });
  return ok({ object: 'list', data: page.reports, has_more: page.hasMore });
}

function deleteReport({ app, params, workspaceId }: HandlerContext): Answer {
  const id = params[0]!;
  if (!app.store.deleteReport(workspaceId, id)) throw notFound(id);
  return ok({ id, object: 'report', deleted: true });
}

export const reportHandlers = {
  createReport: { scope: 'write', handle: createReport },
  listReports: { scope: 'read', handle: listReports },
  getReport: { scope: 'read', handle: getReport },
  deleteReport: { scope: 'write', handle: deleteReport },
} satisfies Partial<Record<OperationId, Handler>>;
