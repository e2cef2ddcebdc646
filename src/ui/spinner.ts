import { formatDuration } from '../core/duration.js';
import type { Io } from './io.js';
import { liveLine } from './live-line.js';
import { fittedLine } from './table.js';

/** What a task under a spinner may do: change the status beside it, or write a line for people above it. */
export interface SpinnerControl {
  status: (text: string) => void;
  note: (line: string) => void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const FRAME_MS = 100;

/**
 * Runs `task` under a spinner on stderr showing its status and the time it has taken, on one live
 * line cut to the terminal's width; when done, one line is left: `message... outcome (elapsed)`.
 * Where no person watches (stdout or stderr not a terminal, CI) there is no spinner and no line,
 * only the notes the task writes.
 */
export async function withSpinner<T>(io: Io, message: string, task: (control: SpinnerControl) => Promise<T>, outcome: (result: T) => string): Promise<T> {
  const write = (line: string) => io.stderr.write(`${fittedLine(line, io.stderr)}\n`);
  if (!io.showsLiveProgress) return task({ status: () => undefined, note: write });
  const line = liveLine(io.stderr);
  const started = performance.now();
  const elapsed = () => formatDuration(performance.now() - started);
  let status = '';
  let frame = 0;
  const draw = () => line.draw(`${message}... ${FRAMES[frame++ % FRAMES.length]} ${status ? `${status} · ` : ''}${elapsed()}`);
  draw();
  const spinner = setInterval(draw, FRAME_MS);
  const end = (text: string) => {
    clearInterval(spinner);
    line.clear();
    write(`${message}... ${text}`);
  };
  try {
    const result = await task({
      status: (text) => {
        status = text;
        draw();
      },
      note: (text) => {
        line.clear();
        write(text);
        draw();
      },
    });
    end(`${outcome(result)} (${elapsed()})`);
    return result;
  } catch (error) {
    end(`stopped after ${elapsed()}`);
    throw error;
  }
}
