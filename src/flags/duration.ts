import { Flags } from '@oclif/core';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of `250ms`, `2s`, `1.5m`, `1h`, `7d`; a bare number is seconds. */
function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h|d)?\s*$/.exec(text);
  if (!match) throw new Error(`${text} is not a duration: give a number with a unit, as 250ms, 2s, 5m, 1h or 7d`);
  return Math.round(Number(match[1]) * UNITS[match[2] ?? 's']!);
}

/** A point in time as an ISO 8601 timestamp, or a duration before now (`1h`: an hour ago); unix milliseconds. */
function parseInstant(text: string, now = Date.now()): number {
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const at = Date.parse(text);
    if (Number.isNaN(at)) throw new Error(`${text} is not a valid timestamp`);
    return at;
  }
  return now - parseDuration(text);
}

export const durationFlag = Flags.custom<number>({ parse: async (input) => parseDuration(input) });
export const instantFlag = Flags.custom<number>({ parse: async (input) => parseInstant(input) });

/** `ms` as a duration flag reads it back exactly, in the largest unit that divides it: 90m, 30s, 200ms. */
export function durationArgument(ms: number): string {
  const unit = (['d', 'h', 'm', 's'] as const).find((name) => ms % UNITS[name]! === 0);
  return unit ? `${ms / UNITS[unit]!}${unit}` : `${ms}ms`;
}
