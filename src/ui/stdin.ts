import { text } from 'node:stream/consumers';

/** All of stdin as text, without its final line break. */
export async function readStdin(): Promise<string> {
  return (await text(process.stdin)).replace(/\r?\n$/, '');
}
