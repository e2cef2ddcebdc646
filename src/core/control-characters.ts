/**
 * Characters a terminal or a log viewer may act on instead of showing: C0 controls (ESC starts the
 * sequences that set the clipboard, retitle the window or rewrite the screen; BEL ends them), DEL, C1
 * controls (U+009B is a CSI of its own), the bidirectional overrides and isolates that reorder what is
 * shown (Trojan Source), and the line and paragraph separators.
 */
const BEYOND_C0 = '\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069';
const CONTROL = new RegExp(`[\u0000-\u001f${BEYOND_C0}]`, 'g');
/** What JSON text may hold raw (JSON.stringify escapes only C0): within a string, as nothing else in JSON text is beyond ASCII. */
const CONTROL_IN_JSON = new RegExp(`[${BEYOND_C0}]`, 'g');

const unicodeEscape = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every such character shown as its escape (`\u001b`, `\n`): it can neither act on what shows it nor break the line it is part of. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (character) => SHORT[character] ?? unicodeEscape(character));
}

/** JSON text with the characters above that JSON.stringify leaves raw written as JSON's `\u` escapes, which parse back to the same text. */
export function escapeControlsInJson(json: string): string {
  return json.replace(CONTROL_IN_JSON, unicodeEscape);
}
