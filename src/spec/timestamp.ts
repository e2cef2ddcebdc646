/**
 * Milliseconds since the epoch of an ISO 8601 timestamp from an answer, NaN when it is none. Part 2
 * states UTC without fixing the form, so `Z`, `+00:00`, `+0000`, any other offset and fractions of
 * any length are read; a timestamp without an offset is UTC, not this machine's local time.
 */
export function parseTimestamp(text: string): number {
  const trimmed = text.trim();
  const hasOffset = /(z|[+-]\d{2}(:?\d{2})?)$/i.test(trimmed);
  return Date.parse(/^\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}/i.test(trimmed) && !hasOffset ? `${trimmed}Z` : trimmed);
}
