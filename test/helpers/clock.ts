import type { Clock } from '../../src/core/clock.js';

const TEST_EPOCH = Date.parse('2026-11-25T12:00:00Z');

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

/**
 * A stepping clock whose every sleep, once it has moved the time on, waits for `pace()` before it
 * resolves: for code that polls for what happens elsewhere (an application's next request, say),
 * so that what it polls for has happened at the new time, whatever the machine's speed.
 */
export function pacedClock(pace: () => Promise<void>, start = TEST_EPOCH): Clock & { slept: number[] } {
  const stepping = steppingClock(start);
  return {
    slept: stepping.slept,
    now: stepping.now,
    async sleep(ms, signal) {
      await stepping.sleep(ms, signal);
      await pace();
      signal?.throwIfAborted();
    },
  };
}

/**
 * A test's time that moves only when the test moves it: `advance` moves it on and resolves the sleeps
 * that end by then, each on the next turn of the event loop. For code that sleeps in a loop until it
 * stops (a listener's look for forwards other replicas left), where steppingClock would spin it.
 */
export function manualClock(start = TEST_EPOCH): Clock & { advance(ms: number): void } {
  let now = start;
  const sleepers = new Set<{ until: number; wake: () => void }>();
  return {
    now: () => now,
    sleep(ms, signal) {
      signal?.throwIfAborted();
      return new Promise((resolve, reject) => {
        const sleeper = {
          until: now + Math.max(0, ms),
          wake: () => {
            signal?.removeEventListener('abort', abort);
            setImmediate(resolve);
          },
        };
        const abort = () => {
          sleepers.delete(sleeper);
          reject(signal!.reason as Error);
        };
        signal?.addEventListener('abort', abort, { once: true });
        sleepers.add(sleeper);
      });
    },
    advance(ms) {
      now += ms;
      for (const sleeper of [...sleepers].filter((waiting) => waiting.until <= now)) {
        sleepers.delete(sleeper);
        sleeper.wake();
      }
    },
  };
}
