import { constants, inflateSync } from 'node:zlib';

/** PDF names that make a document act rather than display: scripts, launched programs, attached files, Flash, XML forms. */
const ACTIVE_CONTENT_NAMES = new Set(['JavaScript', 'JS', 'Launch', 'EmbeddedFile', 'EmbeddedFiles', 'RichMedia', 'XFA']);

/** Object streams are small; a larger inflation is a decompression bomb, not a document. */
const MAX_OBJECT_STREAM_BYTES = 16 * 1024 * 1024;

/** A name token: `/` then regular characters, up to the next white-space or delimiter. */
const PDF_NAME = /\/([^\s/<>[\](){}%]*)/g;
const STREAM_START = /(?<!end)stream\r?\n/g;

export type PdfScan = { verdict: 'clean' } | { verdict: 'active_content'; name: string } | { verdict: 'damaged' };

/**
 * Looks for active content in a PDF's dictionaries: in the file as written and in its compressed object
 * streams (`/Type /ObjStm`), where PDF 1.5+ writers such as pdf-lib put most dictionaries. Names are read
 * with their `#xx` escapes decoded, so `/J#61vaScript` is found as `/JavaScript`.
 */
export function scanPdfForActiveContent(pdf: Uint8Array): PdfScan {
  const raw = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('latin1');
  const objectStreams = objectStreamsOf(raw);
  if (objectStreams === undefined) return { verdict: 'damaged' };
  for (const text of [raw, ...objectStreams]) {
    const name = activeName(text);
    if (name !== undefined) return { verdict: 'active_content', name };
  }
  return { verdict: 'clean' };
}

function activeName(text: string): string | undefined {
  for (const match of text.matchAll(PDF_NAME)) {
    const name = decodeName(match[1] ?? '');
    if (ACTIVE_CONTENT_NAMES.has(name)) return name;
  }
  return undefined;
}

function decodeName(name: string): string {
  return name.replace(/#([0-9A-Fa-f]{2})/g, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** The inflated content of every FlateDecode object stream, or `undefined` when one cannot be inflated. */
function objectStreamsOf(raw: string): string[] | undefined {
  const streams: string[] = [];
  for (const match of raw.matchAll(STREAM_START)) {
    const dictionary = raw.slice(raw.lastIndexOf('obj', match.index), match.index);
    if (!/\/Type\s*\/ObjStm\b/.test(dictionary) || !/\/FlateDecode\b/.test(dictionary)) continue;
    const start = match.index + match[0].length;
    const end = raw.indexOf('endstream', start);
    const data = Buffer.from(raw.slice(start, end === -1 ? raw.length : end), 'latin1');
    try {
      // Sync flush: a stream cut short still yields what it holds instead of failing.
      streams.push(inflateSync(data, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: MAX_OBJECT_STREAM_BYTES }).toString('latin1'));
    } catch {
      return undefined;
    }
  }
  return streams;
}
