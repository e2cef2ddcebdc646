/**
 * How long a test waits for something that should happen before it calls it a hang. Never a measure
 * of speed: a loaded machine takes several times as long as a quiet one, and only a wait that would
 * never end may fail here. vitest.config.ts gives each test and hook twice as long, so that a
 * helper's own message says what never happened.
 */
export const HANG_MS = 60_000;
