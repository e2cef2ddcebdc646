/**
 * Characters a terminal may act on instead of showing: C0 controls (ESC starts the sequences that
 * set the clipboard, retitle the window or rewrite the screen; BEL ends them), DEL, C1 controls
 * (U+009B is a CSI of its own), the bidirectional overrides and isolates that reorder what is shown
 * (Trojan Source), and the line and paragraph separators.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Text from outside svc (a delivery, an API answer, an implementation under test) as it may be
 * written into a line for people: every such character shown as its escape (`\u001b`, `\n`), so
 * that the text can neither act on the terminal nor break the line or table it is part of.
 * JSON output needs none of this: JSON escapes what it must.
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (character) => SHORT[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
