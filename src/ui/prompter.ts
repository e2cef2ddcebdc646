/** Checks an answer: true when it will do, else what is wrong with it (shown under the prompt). */
export type AnswerCheck = (answer: string) => true | string;

/** What commands ask of a person; the inquirer implementation is loaded only when a prompt is due. */
export interface Prompter {
  input: (message: string, options?: { validate?: AnswerCheck }) => Promise<string>;
  select: <T extends string>(message: string, choices: readonly T[]) => Promise<T>;
  secret: (message: string) => Promise<string>;
  confirm: (message: string, defaultAnswer?: boolean) => Promise<boolean>;
}

export const inquirerPrompter: Prompter = {
  async input(message, options = {}) {
    const { input } = await import('@inquirer/prompts');
    return input({ message, validate: options.validate }, { output: process.stderr });
  },
  async select(message, choices) {
    const { select } = await import('@inquirer/prompts');
    return select({ message, choices }, { output: process.stderr });
  },
  async secret(message) {
    const { password } = await import('@inquirer/prompts');
    return password({ message, mask: '*' }, { output: process.stderr });
  },
  async confirm(message, defaultAnswer = false) {
    const { confirm } = await import('@inquirer/prompts');
    return confirm({ message, default: defaultAnswer }, { output: process.stderr });
  },
};

export function canPrompt(): boolean {
  return Boolean(process.stdin.isTTY) && process.env.CI !== 'true';
}
