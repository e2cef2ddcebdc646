import { readFile } from 'node:fs/promises';
import { buffer, text } from 'node:stream/consumers';
import type { SvcError } from '../core/errors.js';
import type { Io } from './io.js';

/** All of stdin as text, without its final line break. */
export async function readStdin(io: Io): Promise<string> {
  return (await text(io.stdin)).replace(/\r?\n$/, '');
}

/** The bytes of `file`, or of stdin when no file is given; `missing()` when neither is (stdin is a terminal). */
export async function readPayload(io: Io, file: string | undefined, missing: () => SvcError): Promise<Buffer> {
  if (file !== undefined) return readFile(file);
  if (io.stdin.isTTY) throw missing();
  return buffer(io.stdin);
}
