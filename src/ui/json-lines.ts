/** One JSON object as one line: the --json form of every command that reports as it goes. */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value);
}

/** Writes one JSON line to `stream`. */
export function writeJsonLine(stream: NodeJS.WritableStream, value: unknown): void {
  stream.write(`${jsonLine(value)}\n`);
}
