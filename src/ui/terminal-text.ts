/**
 * Characters a terminal may act on instead of showing: C0 controls (ESC starts the sequences that
 * set the clipboard, retitle the window or rewrite the screen; BEL ends them), DEL, C1 controls
 * (U+009B is a CSI of its own), the bidirectional overrides and isolates that reorder what is shown
 * (Trojan Source), and the line and paragraph separators.
 */
const BEYOND_C0 = '\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069';
const UNSAFE = new RegExp(`[\u0000-\u001f${BEYOND_C0}]`, 'g');
/** What JSON text may hold raw (JSON.stringify escapes only C0): within a string, as nothing else in JSON text is beyond ASCII. */
const UNSAFE_IN_JSON = new RegExp(`[${BEYOND_C0}]`, 'g');

const unicodeEscape = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Text from outside svc (a delivery, an API answer, an implementation under test) as it may be
 * written into a line for people: every such character shown as its escape (`\u001b`, `\n`), so
 * that the text can neither act on the terminal nor break the line or table it is part of.
 * JSON output is written by terminalJson instead, which keeps the text exact.
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (character) => SHORT[character] ?? unicodeEscape(character));
}

/**
 * `value` as JSON text that a terminal can show as it is: the characters above written as JSON's
 * `\u` escapes, which a reader of the JSON parses back to the same text.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(UNSAFE_IN_JSON, unicodeEscape);
}
