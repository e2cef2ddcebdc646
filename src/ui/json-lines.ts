import type { Output } from './io.js';

/** One JSON object as one line: the --json form of every command that reports as it goes. */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value);
}

/** Writes one JSON line to `out`. */
export function writeJsonLine(out: Output, value: unknown): void {
  out.write(`${jsonLine(value)}\n`);
}
