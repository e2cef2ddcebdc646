/**
 * The size of the tests that load a listener, a fleet or the kit's receiver. `npm test` runs them at
 * a twentieth of their full size, enough for every assertion; `npm run test:scale` (SVC_TEST_SCALE=full),
 * which CI runs too, at the full size.
 */
const FULL = process.env.SVC_TEST_SCALE === 'full';

/** `count` at the full size, a twentieth of it (at least 1) otherwise. */
export function atScale(count: number): number {
  return FULL ? count : Math.max(1, Math.round(count / 20));
}
