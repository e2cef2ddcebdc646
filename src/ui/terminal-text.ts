import { escapeControls, escapeControlsInJson } from '../core/control-characters.js';

/**
 * Text from outside svc (a delivery, an API answer, an implementation under test) as it may be
 * written into a line for people: every character a terminal may act on shown as its escape
 * (`\u001b`, `\n`, see core/control-characters.ts), so that the text can neither act on the terminal
 * nor break the line or table it is part of. JSON output is written by terminalJson instead, which
 * keeps the text exact.
 */
export const terminalText: (text: string) => string = escapeControls;

/** `value` as JSON text that a terminal can show as it is: those characters written as JSON's `\u` escapes. */
export function terminalJson(value: unknown, indent?: number): string {
  return escapeControlsInJson(JSON.stringify(value, null, indent) ?? 'null');
}
