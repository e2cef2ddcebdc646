import { isKnownWaitingStatus, reportOutcome } from '../api/report-outcome.js';
import type { ReportAnswer } from '../api/types.js';
import type { Io } from './io.js';
import { withSpinner } from './spinner.js';
import { terminalText } from './terminal-text.js';

/**
 * Shows a wait for a report to finish (`wait`, which reports each poll to `onPoll`) with a spinner on
 * stderr showing its status, as `reports wait` and `reports create --wait` do. A status svc does not
 * know is named once, so that a wait on it up to the timeout is not a mystery.
 */
export function waitWithSpinner<Report extends ReportAnswer>(
  io: Io,
  id: string,
  timeoutSeconds: number,
  wait: (onPoll: (report: ReportAnswer) => void) => Promise<Report>,
): Promise<Report> {
  const named = new Set<unknown>();
  const statusText = (report: ReportAnswer) => terminalText(String(report.status ?? ''));
  return withSpinner(
    io,
    `Waiting for report ${terminalText(id)}`,
    ({ status, note }) =>
      wait((report) => {
        if (reportOutcome(report) === 'unfinished' && !isKnownWaitingStatus(report.status) && !named.has(report.status)) {
          named.add(report.status);
          note(
            terminalText(
              `Report ${id} has status ${JSON.stringify(report.status ?? null)}, which svc does not know: it waits for completed or a failure, up to ${timeoutSeconds} s.`,
            ),
          );
        }
        status(statusText(report));
      }),
    statusText,
  );
}
