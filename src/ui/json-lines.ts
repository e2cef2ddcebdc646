import type { Output } from './io.js';
import { terminalJson } from './terminal-text.js';

/** One JSON object as one line: the --json form of every command that reports as it goes. */
export function jsonLine(value: unknown): string {
  return terminalJson(value);
}

/** Writes one JSON line to `out`. */
export function writeJsonLine(out: Output, value: unknown): void {
  out.write(`${jsonLine(value)}\n`);
}
