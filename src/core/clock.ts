import { setTimeout as delay } from 'node:timers/promises';

/** The time as a piece of code sees it: the system's, or a test's that moves only when told. */
export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => delay(ms),
};
