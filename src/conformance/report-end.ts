/**
 * How a report the kit polled to its end stands, read from its last GET, in words a check's detail
 * can carry: the status it showed, or that it showed none, or that it could not be read.
 */
import { reportOutcome, type ReportOutcome } from '../api/report-outcome.js';
import type { ReportAnswer } from '../api/types.js';
import { isJsonObject } from '../core/json-object.js';
import type { Exchange } from './http.js';
import { isSuccess, shown, shownValue } from './outcome.js';

export interface ReportEnd {
  /** `unread`: the GET was not answered with a report. */
  outcome: ReportOutcome | 'unread';
  /** What the last read showed, as a clause: `ended "error"`, `showed no status 60 s after its creation`, `could not be read back: …`. */
  words: string;
}

/** The end of a report whose last read is `read`, polled for `waitedMs` at most. */
export function reportEnd(read: Exchange, waitedMs: number): ReportEnd {
  if (!isSuccess(read.status) || !isJsonObject(read.json)) {
    return { outcome: 'unread', words: `could not be read back: ${read.method} ${read.path} answered ${shown(read)}` };
  }
  const report = read.json as ReportAnswer;
  const outcome = reportOutcome(report);
  const status: unknown = report.status;
  if (typeof status === 'string') {
    return {
      outcome,
      words: outcome === 'unfinished' ? `was still ${JSON.stringify(status)} ${waitedMs / 1000} s after its creation` : `ended ${JSON.stringify(status)}`,
    };
  }
  const noStatus = status === undefined || status === null ? 'no status' : `the status ${shownValue(status)}, not a string`;
  if (outcome === 'unfinished') return { outcome, words: `showed ${noStatus} ${waitedMs / 1000} s after its creation` };
  return { outcome, words: `ended failed (error ${shownValue(report.error)}) with ${noStatus}` };
}
