import { redactValue } from '../core/redaction.js';
import { SvcError } from '../core/errors.js';
import type { Output } from '../ui/io.js';
import { hangingLine } from '../ui/table.js';
import { terminalText } from '../ui/terminal-text.js';

// Taken as CommonJS, as in base-command.ts: an ES module import of node:util reads every export.
const { stripVTControlCharacters } = process.getBuiltinModule('node:util');

/** oclif's errors carry the exit code they ask for (2 for a usage error, 127 for an unknown command). */
type OclifError = Error & { oclif?: { exit?: number } };

/** oclif's message as one line: its colours, its "See more help" line and its line breaks gone. */
function oneLine(message: string): string {
  return stripVTControlCharacters(message)
    .replace(/\nSee more help with --help$/, '')
    .replace(/^Parsing (--\S+)\s*\n\s*/, '$1: ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .reduce((text, line) => (text === '' ? line : `${text}${text.endsWith(':') ? ' ' : '; '}${line}`), '');
}

/** What went wrong in parsing a command's arguments and flags (`command`: its words, e.g. `reports get`). */
export function usageError(error: Error, command: string): SvcError {
  const message = oneLine(error.message);
  if (error instanceof SvcError) {
    // A flag's own parser threw it: its kind and hint stand, oclif only decorated its message.
    error.message = message;
    return error;
  }
  return new SvcError('usage', 'invalid_arguments', message, `see \`svc ${command} --help\` for its arguments and flags`, { cause: error });
}

/**
 * Any error as one of svc's: its own as they are, oclif's usage errors (of its plugins' commands,
 * an unknown command) as usage errors, anything else as a failure. oclif's own form of an error
 * would print its whole configuration under --json, the environment and its keys included.
 */
export function asSvcError(error: Error): SvcError {
  if (error instanceof SvcError) return error;
  // Inquirer's answer to Ctrl-C at a prompt: the person stopped the command before anything was sent.
  if (error.name === 'ExitPromptError') return new SvcError('interrupted', 'interrupted', 'stopped at a prompt (Ctrl-C)', undefined, { cause: error });
  const exit = (error as OclifError).oclif?.exit;
  if (exit === 2)
    return new SvcError('usage', 'invalid_arguments', oneLine(error.message), 'see `svc help` for the commands, their arguments and flags', { cause: error });
  return new SvcError('failure', 'unexpected_error', oneLine(error.message), undefined, { cause: error });
}

/** A resource the command made before it failed: a script must be able to find it again. */
export interface MadeResource {
  object: string;
  id: string;
}

/**
 * Prints an error as every svc command does: under --json, `{"error": {kind, code, message, hint,
 * exit_code, made}}` through `logJson`; for people, the message and its hint on stderr, and what
 * was made unless they name it. Secrets redacted in both.
 */
export function writeError(
  error: SvcError,
  output: { logJson: ((json: unknown) => void) | undefined; stderr: Output },
  secrets: readonly string[],
  made?: MadeResource,
): void {
  const redacted = redactValue({ ...error.toJSON(), ...(made && { made }) }, secrets) as { message: string; hint?: string };
  output.logJson?.({ error: redacted });
  // Messages carry what an API or a sender said; --json has them exact, people see them escaped.
  output.stderr.write(`${hangingLine('Error: ', terminalText(redacted.message), output.stderr)}\n`);
  if (redacted.hint) output.stderr.write(`${hangingLine('  → ', terminalText(redacted.hint), output.stderr)}\n`);
  if (made && !`${redacted.message} ${redacted.hint ?? ''}`.includes(made.id)) {
    output.stderr.write(`${hangingLine('  → ', terminalText(`the ${made.object} ${made.id} was made before this error`), output.stderr)}\n`);
  }
}
