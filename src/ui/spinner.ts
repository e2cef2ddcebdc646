import { ux } from '@oclif/core';

/**
 * Runs `task` under a spinner on stderr, whose status `task` may update; where oclif would not
 * spin (stderr not a terminal, CI, a dumb terminal) one line says what is going on instead.
 */
export async function withSpinner<T>(message: string, task: (status: (text: string) => void) => Promise<T>, outcome: (result: T) => string): Promise<T> {
  if (ux.action.type !== 'spinner') {
    process.stderr.write(`${message}…\n`);
    return task(() => undefined);
  }
  ux.action.start(message);
  try {
    const result = await task((text) => (ux.action.status = text));
    ux.action.stop(outcome(result));
    return result;
  } catch (error) {
    ux.action.stop('!');
    throw error;
  }
}
