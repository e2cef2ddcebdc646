/** The formats the service accepts for a document, recognised by content (client and sandbox alike). */
export type DocumentFormat = 'application/pdf' | 'image/jpeg' | 'image/png' | 'text/plain';

const PDF_SIGNATURE = [...'%PDF-'].map((character) => character.charCodeAt(0));
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** C0 and C1 control characters and DEL, except tab, line feed, form feed and carriage return. */
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000E-\u001F\u007F-\u009F]/;

export function startsWith(bytes: Uint8Array, signature: readonly number[]): boolean {
  return bytes.length >= signature.length && signature.every((byte, index) => bytes[index] === byte);
}

/** The text of a UTF-8 file without control characters; undefined for anything else. */
export function decodeText(bytes: Uint8Array): string | undefined {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  return CONTROL_CHARACTERS.test(text) ? undefined : text;
}

/** The media type of a file from its content alone; a file name is never consulted. */
export function detectFormat(bytes: Uint8Array): DocumentFormat | undefined {
  if (startsWith(bytes, PDF_SIGNATURE)) return 'application/pdf';
  if (startsWith(bytes, JPEG_SIGNATURE)) return 'image/jpeg';
  if (startsWith(bytes, PNG_SIGNATURE)) return 'image/png';
  if (bytes.length > 0 && decodeText(bytes) !== undefined) return 'text/plain';
  return undefined;
}
