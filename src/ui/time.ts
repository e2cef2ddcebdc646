import type { Output } from './io.js';

/** How a time from an answer is shown to people. */
export interface TimeView {
  /** In a resource's fields: "3 minutes ago (2026-11-23 17:20 CET)". */
  full(value: string | null | undefined): string | undefined;
  /** In a table: "3m ago", "in 2h", or the local date beyond a month. */
  short(value: string | null | undefined): string | undefined;
  /** In a log of lines as they happen: the local time of day, "17:20:31". */
  clock(value: string): string;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MONTH = 30 * DAY;
const YEAR = 365 * DAY;

// Made on first use: Intl's first formatter costs some 10 ms, which --json and piped output never need.
let relative: Intl.RelativeTimeFormat | undefined;

function phrase(ms: number): string {
  const size = Math.abs(ms);
  const [unit, length]: [Intl.RelativeTimeFormatUnit, number] =
    size < MINUTE
      ? ['second', SECOND]
      : size < HOUR
        ? ['minute', MINUTE]
        : size < DAY
          ? ['hour', HOUR]
          : size < MONTH
            ? ['day', DAY]
            : size < YEAR
              ? ['month', MONTH]
              : ['year', YEAR];
  return (relative ??= new Intl.RelativeTimeFormat('en', { numeric: 'auto' })).format(Math.trunc(ms / length), unit);
}

function compact(ms: number): string {
  const size = Math.abs(ms);
  if (size < SECOND) return 'now';
  const amount =
    size < MINUTE
      ? `${Math.floor(size / SECOND)}s`
      : size < HOUR
        ? `${Math.floor(size / MINUTE)}m`
        : size < DAY
          ? `${Math.floor(size / HOUR)}h`
          : `${Math.floor(size / DAY)}d`;
  return ms < 0 ? `${amount} ago` : `in ${amount}`;
}

/** `2026-11-23 17:20 CET`: the local date and time, in the system's time zone (TZ). */
function local(date: Date, withTime: boolean): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      ...(withTime ? { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' } : {}),
    })
      .formatToParts(date)
      .map((part) => [part.type, part.value]),
  );
  const day = `${parts.year}-${parts.month}-${parts.day}`;
  return withTime ? `${day} ${parts.hour}:${parts.minute} ${parts.timeZoneName}` : day;
}

/** A time from an answer, when it is one: the specification states ISO 8601 UTC, another service may send anything. */
function parsed(value: string | null | undefined): Date | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** Times as the answer gives them (ISO 8601 UTC): with --utc, and when stdout is not a terminal. */
const exact: TimeView = { full: (value) => value ?? undefined, short: (value) => value ?? undefined, clock: (value) => value };

/**
 * Times for people at a terminal, relative to `now` and local; exact as given with `--utc` or when
 * stdout is piped (and always in --json, which shows answers as they are). A value that is not a
 * time is shown as it is.
 */
export function timeView(utc: boolean, out: Output, now: number = Date.now()): TimeView {
  if (utc || !out.isTTY) return exact;
  return {
    full(value) {
      const date = parsed(value);
      return date ? `${phrase(date.getTime() - now)} (${local(date, true)})` : (value ?? undefined);
    },
    short(value) {
      const date = parsed(value);
      if (!date) return value ?? undefined;
      const ms = date.getTime() - now;
      return Math.abs(ms) < MONTH ? compact(ms) : local(date, false);
    },
    clock(value) {
      const date = parsed(value);
      return date ? date.toLocaleTimeString('en-GB', { hourCycle: 'h23' }) : value;
    },
  };
}
