import type { Io, Output } from './io.js';
import { hangingText } from './table.js';

/** Checks an answer: true when it will do, else what is wrong with it (shown under the prompt). */
export type AnswerCheck = (answer: string) => true | string;

/** What commands ask of a person; the inquirer implementation is loaded only when a prompt is due. */
export interface Prompter {
  /** `answer` is an earlier answer, put on the line to edit. */
  input: (message: string, options?: { validate?: AnswerCheck; answer?: string }) => Promise<string>;
  select: <T extends string>(message: string, choices: readonly T[]) => Promise<T>;
  secret: (message: string) => Promise<string>;
  confirm: (message: string, defaultAnswer?: boolean) => Promise<boolean>;
}

/** Cells kept free on each line of a question for what inquirer adds to its last: ` (y/N) ` and the answer typed. */
const ANSWER_ROOM = 10;

/**
 * A question as a terminal shows it whole: inquirer cuts a line too wide for the terminal where its
 * edge falls, in the middle of a path, a URL or a setting name, so svc wraps it between words first,
 * under the text that follows inquirer's `? `. A word longer than a line is still cut by inquirer,
 * which must know how many lines it drew to draw them again: a question names no path or URL, which
 * goes on a line of its own above it.
 */
function fitted(message: string, out: Output): string {
  return out.isTTY ? hangingText('  ', message, out.columns - ANSWER_ROOM).slice(2) : message;
}

/** Asks with inquirer on the command's terminal: questions on stderr, answers from stdin. */
export function inquirerPrompter(io: Io): Prompter {
  const context = { input: io.stdin, output: io.stderr.stream };
  const question = (message: string) => fitted(message, io.stderr);
  return {
    async input(message, options = {}) {
      const { input } = await import('@inquirer/prompts');
      return input(
        {
          message: question(message),
          validate: options.validate,
          ...(options.answer !== undefined && { default: options.answer, prefill: 'editable' as const }),
        },
        context,
      );
    },
    async select(message, choices) {
      const { select } = await import('@inquirer/prompts');
      return select({ message: question(message), choices }, context);
    },
    async secret(message) {
      const { password } = await import('@inquirer/prompts');
      return password({ message: question(message), mask: '*' }, context);
    },
    async confirm(message, defaultAnswer = false) {
      const { confirm } = await import('@inquirer/prompts');
      return confirm({ message: question(message), default: defaultAnswer }, context);
    },
  };
}
