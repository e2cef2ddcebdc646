import { expect, it } from 'vitest';
import { CHECKS_BY_ID } from '../../src/conformance/catalogue.js';
import { BROKEN } from './accuracy.js';

it('has a switch for every check of level spec', () => {
  // A check that no implementation can fail on evidence the kit authenticates (the signature's, given the
  // secret: what does not verify is noise) shows that it does not pass blindly by a variant it leaves inconclusive.
  const switched = new Set(BROKEN.flatMap((variant) => (variant.breaks.length > 0 ? variant.breaks : (variant.inconclusive ?? []))));
  const spec = [...CHECKS_BY_ID.values()].filter((check) => check.level === 'spec').map((check) => check.id);
  expect(spec.filter((id) => !switched.has(id))).toEqual([]);
});
