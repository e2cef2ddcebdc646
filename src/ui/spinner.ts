import { ux } from '@oclif/core';

/** What a task under a spinner may do: change the status beside it, or write a line for people above it. */
export interface SpinnerControl {
  status(text: string): void;
  note(line: string): void;
}

/**
 * Runs `task` under a spinner on stderr, whose status `task` may update; where oclif would not
 * spin (stderr not a terminal, CI, a dumb terminal) one line says what is going on instead.
 */
export async function withSpinner<T>(message: string, task: (control: SpinnerControl) => Promise<T>, outcome: (result: T) => string): Promise<T> {
  const write = (line: string) => process.stderr.write(`${line}\n`);
  if (ux.action.type !== 'spinner') {
    write(`${message}…`);
    return task({ status: () => undefined, note: write });
  }
  ux.action.start(message);
  try {
    const result = await task({ status: (text) => (ux.action.status = text), note: (line) => ux.action.pause(() => write(line)) });
    ux.action.stop(outcome(result));
    return result;
  } catch (error) {
    ux.action.stop('!');
    throw error;
  }
}
