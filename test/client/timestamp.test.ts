import { afterEach, describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../src/spec/timestamp.js';

const AT = Date.UTC(2026, 0, 5, 9, 30);
const zone = process.env.TZ;
afterEach(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('parseTimestamp', () => {
  it.each([
    '2026-01-05T09:30:00Z',
    '2026-01-05T09:30:00+00:00',
    '2026-01-05T09:30:00-00:00',
    '2026-01-05T09:30:00+0000',
    '2026-01-05T09:30:00.000000+00:00',
    '2026-01-05 09:30:00+00',
    '2026-01-05T10:30:00+01:00',
    '2026-01-05t09:30:00z',
  ])('reads %s as the same instant', (text) => {
    expect(parseTimestamp(text)).toBe(AT);
  });

  it("reads a timestamp without an offset as UTC (part 2), not this machine's time zone", () => {
    process.env.TZ = 'Asia/Kolkata';
    expect(parseTimestamp('2026-01-05T09:30:00')).toBe(AT);
  });

  it('gives NaN for what is no timestamp', () => {
    expect(parseTimestamp('yesterday')).toBeNaN();
  });
});
