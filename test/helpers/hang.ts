/**
 * How long a test waits for something that should happen before it calls it a hang. Never a measure
 * of speed: a loaded machine takes several times as long as a quiet one, and only a wait that would
 * never end may fail here. vitest.config.ts gives each test and hook twice as long, so that a
 * helper's own message says what never happened.
 */
export const HANG_MS = 60_000;

/**
 * A hang guard for work whose length grows with the machine's load (a thousand round trips): it
 * aborts `signal` only when `progress()` was not called for HANG_MS, however long the work takes.
 */
export function stallGuard(): { signal: AbortSignal; progress(): void; stop(): void } {
  const controller = new AbortController();
  let last = Date.now();
  const timer = setInterval(() => {
    if (Date.now() - last > HANG_MS) controller.abort(new Error(`nothing happened for ${HANG_MS / 1000} s`));
  }, 1_000);
  return {
    signal: controller.signal,
    progress: () => void (last = Date.now()),
    stop: () => clearInterval(timer),
  };
}
