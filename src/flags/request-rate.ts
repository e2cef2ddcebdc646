import { Flags } from '@oclif/core';
import type { RequestRate } from '../conformance/request-rate.js';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `60/m`: a number of requests per second, minute, hour or day, as Schemathesis's `--rate-limit` takes it. */
function parseRequestRate(text: string): RequestRate {
  const match = /^\s*(\d+)\s*\/\s*([smhd])\s*$/.exec(text);
  if (!match || Number(match[1]) === 0)
    throw new Error(`${text} is not a request rate: give a number of requests (1 or more) per second, minute, hour or day, as 2/s, 60/m or 1000/h`);
  return { requests: Number(match[1]), perMs: UNITS[match[2]!]!, text: text.trim() };
}

export const requestRateFlag = Flags.custom<RequestRate>({ parse: async (input) => parseRequestRate(input) });
