import { formatDuration } from '../core/duration.js';
import { terminalText } from './terminal-text.js';

const WHY: Record<string, string> = {
  'status 429': "the service answered 429: the plan's request rate is exceeded",
  'status 502': 'the service answered 502 (bad gateway)',
  'status 503': 'the service answered 503 (unavailable)',
  'status 504': 'the service answered 504 (gateway timeout)',
};

/** The line that tells a person why a command waits before trying a request again, and for how long. */
export function retryWaitLine(method: string, path: string, attempt: number, attempts: number, delayMs: number, reason: string): string {
  const why = WHY[reason] ?? `it failed: ${terminalText(reason)}`;
  return `Waiting ${formatDuration(delayMs)} before trying ${method} ${terminalText(path)} again (attempt ${attempt} of ${attempts}): ${why}`;
}
