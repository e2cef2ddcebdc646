import { SvcError } from '../core/errors.js';
import type { Io } from './io.js';
import type { Prompter } from './prompter.js';

/**
 * Guards a destructive step: `--yes` goes ahead, a person on a terminal is asked,
 * and anything else is refused rather than guessed.
 */
export async function confirmOrRefuse(question: string, yes: boolean, io: Io, prompter: Prompter): Promise<void> {
  if (yes) return;
  if (!io.canPrompt) {
    throw new SvcError(
      'usage',
      'confirmation_required',
      `${question.replace(/\?.*$/, '')}: --yes is required when not running interactively`,
      'add --yes to confirm from a script',
    );
  }
  if (!(await prompter.confirm(question))) throw new SvcError('failure', 'cancelled', 'cancelled; nothing was changed');
}
