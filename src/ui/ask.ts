import type { AnswerCheck, Prompter } from './prompter.js';

const ANOTHER = '(another value)';

/**
 * Offers the values svc knows, and takes any other typed in: the allowed values are the service's
 * to decide (openapi.yaml only assumes them).
 */
export async function chooseOrType(
  prompter: Prompter,
  message: string,
  known: readonly string[],
  validate?: AnswerCheck,
  /** Choices offered after "another value" and answered as they are, like a "(skip)". */
  after: readonly string[] = [],
): Promise<string> {
  const choice = await prompter.select(message, [...known, ANOTHER, ...after]);
  return choice === ANOTHER ? prompter.input(message, { validate }) : choice;
}

/**
 * The warning for flags left out where there is no terminal to ask for them: they are not sent,
 * and the service, not svc, decides whether it needs them.
 */
export function leftOutWarning(missing: string[]): string | undefined {
  if (missing.length === 0) return undefined;
  const names = missing.map((name) => `--${name}`).join(', ');
  return `sent without ${names}: there is no terminal to ask for ${missing.length === 1 ? 'it' : 'them'}, and the specification does not say whether the service needs ${missing.length === 1 ? 'it' : 'them'}`;
}
