import { constants, inflateSync } from 'node:zlib';

/** PDF names that make a document act rather than display: scripts, launched programs, attached files, Flash, XML forms. */
const ACTIVE_CONTENT_NAMES = new Set(['JavaScript', 'JS', 'Launch', 'EmbeddedFile', 'EmbeddedFiles', 'RichMedia', 'XFA']);

/** Object streams hold a document's dictionaries, which are small; inflating more than this in all is a decompression bomb. */
const MAX_OBJECT_STREAM_BYTES = 16 * 1024 * 1024;

/** A name token: `/` then regular characters, up to the next white-space or delimiter. */
const PDF_NAME = /\/([^\s/<>[\](){}%]*)/g;
const STREAM_START = /(?<!end)stream\r?\n/g;
const OBJECT_START = /obj/g;
const OBJECT_STREAM_TYPE = /\/Type\s*\/ObjStm\b/g;
const FLATE_FILTER = /\/FlateDecode\b/g;
const STREAM_END = 'endstream';

export type PdfScan = { verdict: 'clean' } | { verdict: 'active_content'; name: string } | { verdict: 'damaged' };

/**
 * Looks for active content in a PDF's dictionaries: in the file as written and in its compressed object
 * streams (`/Type /ObjStm`), where PDF 1.5+ writers such as pdf-lib put most dictionaries. Names are read
 * with their `#xx` escapes decoded, so `/J#61vaScript` is found as `/JavaScript`.
 *
 * Every `stream` keyword is taken for the start of a stream, even one inside another stream's data (a
 * cross-reference table may point anywhere), and its dictionary is the text from the last `obj` before
 * it. The file is read front to back once, however many streams share an object or an end.
 */
export function scanPdfForActiveContent(pdf: Uint8Array): PdfScan {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const raw = bytes.toString('latin1');
  let inObjectStreams: string | undefined;
  for (const data of objectStreamsOf(raw, bytes)) {
    if (data === undefined) return { verdict: 'damaged' };
    inObjectStreams ??= activeName(data);
  }
  const name = activeName(raw) ?? inObjectStreams;
  return name === undefined ? { verdict: 'clean' } : { verdict: 'active_content', name };
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

/**
 * The inflated content of each FlateDecode object stream, in file order; `undefined` for one that cannot
 * be inflated, that starts inside the data of an object stream already inflated (in a well-formed file
 * object streams do not overlap, and inflating overlapping ones again and again would not be linear), or
 * that takes the inflated total past the limit.
 */
function* objectStreamsOf(raw: string, bytes: Buffer): Generator<string | undefined> {
  const lastObject = lastMatchBefore(raw, OBJECT_START);
  const lastObjectStreamType = lastMatchBefore(raw, OBJECT_STREAM_TYPE);
  const lastFlateFilter = lastMatchBefore(raw, FLATE_FILTER);
  const nextEnd = nextIndexFrom(raw, STREAM_END);
  let inflatedUpTo = 0;
  let budget = MAX_OBJECT_STREAM_BYTES;
  for (const match of raw.matchAll(STREAM_START)) {
    const object = lastObject(match.index);
    if (object === -1 || lastObjectStreamType(match.index) < object || lastFlateFilter(match.index) < object) continue;
    const start = match.index + match[0].length;
    if (start < inflatedUpTo) {
      yield undefined;
      return;
    }
    inflatedUpTo = nextEnd(start);
    const inflated = inflate(bytes.subarray(start, inflatedUpTo), budget);
    yield inflated?.toString('latin1');
    if (inflated === undefined) return;
    budget -= inflated.length;
  }
}

/** Sync flush: a stream cut short still yields what it holds instead of failing. */
function inflate(data: Buffer, maxOutputLength: number): Buffer | undefined {
  try {
    return inflateSync(data, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength });
  } catch {
    return undefined;
  }
}

/**
 * For positions asked in increasing order: where the last match of `pattern` that ends at or before the
 * position starts (-1 when none). The matches are found once, front to back.
 */
function lastMatchBefore(text: string, pattern: RegExp): (position: number) => number {
  const matches = text.matchAll(pattern);
  let next = matches.next();
  let last = -1;
  return (position) => {
    while (!next.done && next.value.index + next.value[0].length <= position) {
      last = next.value.index;
      next = matches.next();
    }
    return last;
  };
}

/** For positions asked in increasing order: the index of the next `search` at or after the position (the text's length when none). */
function nextIndexFrom(text: string, search: string): (position: number) => number {
  let found = -1;
  return (position) => {
    if (found < position && found !== text.length) {
      const index = text.indexOf(search, position);
      found = index === -1 ? text.length : index;
    }
    return found;
  };
}
