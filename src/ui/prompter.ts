/** What commands ask of a person; the inquirer implementation is loaded only when a prompt is due. */
export interface Prompter {
  input(message: string): Promise<string>;
  secret(message: string): Promise<string>;
  confirm(message: string, defaultAnswer?: boolean): Promise<boolean>;
}

export const inquirerPrompter: Prompter = {
  async input(message) {
    const { input } = await import('@inquirer/prompts');
    return input({ message }, { output: process.stderr });
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
