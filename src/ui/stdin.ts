import { readFile } from 'node:fs/promises';
import { buffer, text } from 'node:stream/consumers';
import type { SvcError } from '../errors.js';

/** All of stdin as text, without its final line break. */
export async function readStdin(): Promise<string> {
  return (await text(process.stdin)).replace(/\r?\n$/, '');
}

/** The bytes of `file`, or of stdin when no file is given; `missing()` when neither is (stdin is a terminal). */
export async function readPayload(file: string | undefined, missing: () => SvcError): Promise<Buffer> {
  if (file !== undefined) return readFile(file);
  if (process.stdin.isTTY) throw missing();
  return buffer(process.stdin);
}
