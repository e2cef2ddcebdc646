/**
 * How times read at a terminal: relative to an injected `now`, in the zone of TZ, checked against
 * answers worked out by hand; piped output and --utc show the answer's own text.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Output } from '../../src/ui/io.js';
import { timeView } from '../../src/ui/time.js';

const NOW = Date.parse('2026-11-23T16:20:00Z');
const terminal = new Output({ isTTY: true } as NodeJS.WriteStream, {});
const piped = new Output({ isTTY: false } as NodeJS.WriteStream, {});

beforeAll(() => {
  // Node reads TZ again when it is assigned: 16:20 UTC is 17:20 in Paris in November (CET, UTC+1).
  process.env.TZ = 'Europe/Paris';
});

describe('a time at a terminal', () => {
  const view = timeView(false, terminal, NOW);

  it.each([
    ['2026-11-23T16:17:00Z', '3 minutes ago (2026-11-23 17:17 GMT+1)'],
    ['2026-11-23T16:19:58Z', '2 seconds ago (2026-11-23 17:19 GMT+1)'],
    ['2026-11-23T16:20:00Z', 'now (2026-11-23 17:20 GMT+1)'],
    ['2026-11-23T18:20:00Z', 'in 2 hours (2026-11-23 19:20 GMT+1)'],
    ['2026-11-22T16:20:00Z', 'yesterday (2026-11-22 17:20 GMT+1)'],
    ['2026-07-01T10:00:00Z', '4 months ago (2026-07-01 12:00 GMT+2)'],
    ['2024-11-23T16:20:00Z', '2 years ago (2024-11-23 17:20 GMT+1)'],
  ])('full(%s) is %s', (value, expected) => {
    expect(view.full(value)).toBe(expected);
  });

  it.each([
    ['2026-11-23T16:20:00.400Z', 'now'],
    ['2026-11-23T16:19:15Z', '45s ago'],
    ['2026-11-23T16:17:00Z', '3m ago'],
    ['2026-11-23T18:21:00Z', 'in 2h'],
    ['2026-11-20T10:00:00Z', '3d ago'],
    ['2026-10-01T10:00:00Z', '2026-10-01'],
    ['2027-03-01T10:00:00Z', '2027-03-01'],
  ])('short(%s) is %s', (value, expected) => {
    expect(view.short(value)).toBe(expected);
  });

  it('clock() is the local time of day', () => {
    expect(view.clock('2026-11-23T16:20:31Z')).toBe('17:20:31');
  });

  it('shows a value that is not a time as it is, and nothing for nothing', () => {
    expect(view.full('yesterday-ish')).toBe('yesterday-ish');
    expect(view.short('soon')).toBe('soon');
    expect(view.clock('later')).toBe('later');
    expect(view.full(undefined)).toBeUndefined();
    expect(view.short(null)).toBeUndefined();
    expect(view.full('')).toBe('');
  });
});

describe('a time piped or with --utc', () => {
  it.each([
    ['piped', timeView(false, piped, NOW)],
    ['--utc', timeView(true, terminal, NOW)],
  ])('%s: the answer as given', (_, view) => {
    expect(view.full('2026-11-23T16:17:00Z')).toBe('2026-11-23T16:17:00Z');
    expect(view.short('2026-11-23T16:17:00Z')).toBe('2026-11-23T16:17:00Z');
    expect(view.clock('2026-11-23T16:20:31Z')).toBe('2026-11-23T16:20:31Z');
  });
});
