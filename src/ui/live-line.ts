import { stringWidth } from './text-width.js';
import type { Output } from './io.js';

/** A line redrawn in place on a terminal: a spinner's, a countdown's. */
export interface LiveLine {
  /** Replaces the line with `text`, cut to the terminal's width. */
  draw(text: string): void;
  /** Erases the line, leaving the cursor at its start. */
  clear(): void;
}

/**
 * `text` cut to `columns` cells, an ellipsis marking the cut. Plain text only (no escape sequences):
 * a live line is written by svc, escaped where it carries outside text.
 */
function cutToWidth(text: string, columns: number): string {
  if (stringWidth(text) <= columns) return text;
  let cut = '';
  let width = 0;
  for (const { segment } of new Intl.Segmenter().segment(text)) {
    const cells = stringWidth(segment);
    if (width + cells > columns - 1) break;
    cut += segment;
    width += cells;
  }
  return `${cut}…`;
}

/**
 * A live line on `out`. It never wraps: a wrapped line could not be erased by returning to its
 * start, and every redraw would leave a line behind. It is cut to one cell less than the terminal's
 * width, so that the cursor never waits at the edge for a wrap.
 */
export function liveLine(out: Output): LiveLine {
  return {
    draw: (text) => out.write(`\r\u001b[2K${cutToWidth(text, out.columns - 1)}`),
    clear: () => out.write('\r\u001b[2K'),
  };
}
