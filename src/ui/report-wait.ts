import type { ApiClient } from '../api/client.js';
import type { Report } from '../api/types.js';
import { waitForReport } from '../services/reports.js';
import { withSpinner } from './spinner.js';

/** Waits for a report to finish with a spinner on stderr showing its status, as `reports wait` and `reports create --wait` do. */
export function waitWithSpinner(client: ApiClient, id: string, timeoutSeconds: number): Promise<Report> {
  return withSpinner(
    `Waiting for report ${id}`,
    (status) => waitForReport(client, id, { timeoutMs: timeoutSeconds * 1000, onPoll: (report) => status(report.status) }),
    (report) => report.status,
  );
}
