/** One JSON object as one line of stdout: the --json form of every command that reports as it goes. */
export function writeJsonLine(stream: NodeJS.WritableStream, value: unknown): void {
  stream.write(`${JSON.stringify(value)}\n`);
}
