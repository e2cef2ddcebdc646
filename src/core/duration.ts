/** Milliseconds the way people read them: 15m, 1h30m, 90 s → 1m30s, 0.2s. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms / 100) / 10}s`;
  let seconds = Math.round(ms / 1000);
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  return [hours && `${hours}h`, minutes && `${minutes}m`, seconds && `${seconds}s`].filter(Boolean).join('') || '0s';
}
