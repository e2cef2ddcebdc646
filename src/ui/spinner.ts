import { ux } from '@oclif/core';
import { formatDuration } from '../duration.js';
import { type Io, showsLiveProgress } from './io.js';

/** What a task under a spinner may do: change the status beside it, or write a line for people above it. */
export interface SpinnerControl {
  status: (text: string) => void;
  note: (line: string) => void;
}

/**
 * Runs `task` under a spinner on stderr showing its status and the time it has taken; when done,
 * one line is left: `message… outcome (elapsed)`. Where no person watches (stdout or stderr not a
 * terminal, CI) there is no spinner and no line, only the notes the task writes.
 */
export async function withSpinner<T>(io: Io, message: string, task: (control: SpinnerControl) => Promise<T>, outcome: (result: T) => string): Promise<T> {
  const write = (line: string) => io.stderr.write(`${line}\n`);
  if (!showsLiveProgress(io)) return task({ status: () => undefined, note: write });
  const started = performance.now();
  const elapsed = () => formatDuration(performance.now() - started);
  let status = '';
  const show = () => (ux.action.status = status ? `${status} · ${elapsed()}` : elapsed());
  ux.action.start(message);
  show();
  const clock = setInterval(show, 1000);
  try {
    const result = await task({
      status: (text) => {
        status = text;
        show();
      },
      note: (line) => void ux.action.pause(() => write(line)),
    });
    ux.action.stop(`${outcome(result)} (${elapsed()})`);
    return result;
  } catch (error) {
    ux.action.stop(`stopped after ${elapsed()}`);
    throw error;
  } finally {
    clearInterval(clock);
  }
}
