import type { Clock } from '../../src/core/clock.js';

export const TEST_EPOCH = Date.parse('2026-11-25T12:00:00Z');

/**
 * A test's time: it stands still until the code under test sleeps, and a sleep moves it on by as
 * long at once. The sleep resolves on the next turn of the event loop, so that answers already on
 * their way (sockets, timers of zero) are taken before the code goes on. `slept` records each sleep.
 */
export function steppingClock(start = TEST_EPOCH): Clock & { slept: number[] } {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep(ms, signal) {
      signal?.throwIfAborted();
      slept.push(ms);
      now += Math.max(0, ms);
      return new Promise((resolve, reject) =>
        setImmediate(() => {
          if (signal?.aborted) reject(signal.reason as Error);
          else resolve();
        }),
      );
    },
  };
}
