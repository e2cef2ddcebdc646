/** One JSON object as one line of stdout: the --json form of every command that reports as it goes. */
export function writeJsonLine(value: unknown, stream: NodeJS.WritableStream = process.stdout): void {
  stream.write(`${JSON.stringify(value)}\n`);
}
