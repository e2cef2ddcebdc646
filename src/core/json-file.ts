import { readFile } from 'node:fs/promises';
import { type ErrorKind, SvcError } from './errors.js';

/**
 * A file that must hold a JSON object (an applicant profile, a request body), or an error that says
 * what is wrong with it: `what` names the file in the message, `flag` the flag that gave it, and
 * `example` shows an object that would do; `fault` gives the error's kind and its codes.
 */
export async function readJsonObjectFile(
  path: string,
  describe: { what: string; flag: string; example: string },
  fault: { kind: ErrorKind; unreadable: string; invalid: string },
): Promise<Record<string, unknown>> {
  const fail = (code: string, message: string, hint: string) => new SvcError(fault.kind, code, message, hint);
  const giveAnObject = `give a JSON object, like ${describe.example}`;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw fail(
      fault.unreadable,
      `cannot read ${describe.what} ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      `check the path given with ${describe.flag}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw fail(fault.invalid, `${describe.what} ${path} is not valid JSON (${(error as Error).message})`, giveAnObject);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw fail(fault.invalid, `${describe.what} ${path} does not hold a JSON object`, giveAnObject);
  return value as Record<string, unknown>;
}
