import { SvcError } from '../errors.js';
import { canPrompt } from './prompter.js';

/**
 * A command that asks for missing flags on a terminal calls this first: anywhere else the
 * missing flags are a usage error that names them all, rather than a prompt nobody can answer.
 */
export function refuseMissingFlags(missing: string[], example: string): void {
  if (missing.length === 0 || canPrompt()) return;
  const names = missing.map((name) => `--${name}`).join(', ');
  throw new SvcError('usage', 'missing_flags', `missing ${names}: there is no terminal to ask for ${missing.length === 1 ? 'it' : 'them'}`, `pass ${names}, for example: ${example}`);
}
