import type { ReportAnswer } from './types.js';

export type ReportOutcome = 'completed' | 'failed' | 'unfinished';

/** A status value that reads as a failure: part 3 names a failed outcome but not its value. */
export function readsAsFailure(status: unknown): boolean {
  return typeof status === 'string' && /fail|error|reject|cancel|abort|expire/i.test(status);
}

/** Status values that read as waiting or working (part 3 names "a queued state" without its value). */
const WAITING = /^(queued|pending|processing|in_progress|running|started|scheduled|waiting|created|submitted|accepted|new|analy[sz]ing)$/i;

/**
 * Where a report stands. `completed` is the one status value the spec states (part 3); a failure
 * is a status that reads as one, or an `error` object with a code or a message (as
 * `report.failed` carries, part 6); anything else is taken as not finished yet.
 */
export function reportOutcome(report: ReportAnswer): ReportOutcome {
  if (report.status === 'completed') return 'completed';
  if (readsAsFailure(report.status)) return 'failed';
  const error: unknown = report.error;
  if (typeof error === 'object' && error !== null && ('code' in error || 'message' in error)) return 'failed';
  return 'unfinished';
}

/** True for a status svc knows as a report waiting or being worked on. */
export function isKnownWaitingStatus(status: unknown): boolean {
  return typeof status === 'string' && WAITING.test(status);
}
