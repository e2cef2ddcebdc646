import { terminalText } from './terminal-text.js';

/** Every ASCII punctuation character: CommonMark lets each be escaped with a backslash, and none then acts. */
const PUNCTUATION = /[!-/:-@[-`{-~]/g;

/**
 * Text from outside svc as it may be written into Markdown (a CI job's summary), within a line or a
 * table cell: controls and line breaks shown as their escapes, as in a terminal, then every ASCII
 * punctuation character escaped. It then renders as the characters it is: no emphasis, link, image,
 * HTML, heading or table cell of its own, no autolink (`:`, `.` and `@` are escaped too), and a line
 * it is part of cannot begin with `::`, a runner's workflow command.
 */
export function markdownText(text: string): string {
  return terminalText(text).replace(PUNCTUATION, (character) => `\\${character}`);
}
