import type { Io } from './io.js';

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

/** Asks with inquirer on the command's terminal: questions on stderr, answers from stdin. */
export function inquirerPrompter(io: Io): Prompter {
  const context = { input: io.stdin, output: io.stderr.stream };
  return {
    async input(message, options = {}) {
      const { input } = await import('@inquirer/prompts');
      return input(
        { message, validate: options.validate, ...(options.answer !== undefined && { default: options.answer, prefill: 'editable' as const }) },
        context,
      );
    },
    async select(message, choices) {
      const { select } = await import('@inquirer/prompts');
      return select({ message, choices }, context);
    },
    async secret(message) {
      const { password } = await import('@inquirer/prompts');
      return password({ message, mask: '*' }, context);
    },
    async confirm(message, defaultAnswer = false) {
      const { confirm } = await import('@inquirer/prompts');
      return confirm({ message, default: defaultAnswer }, context);
    },
  };
}
