import type { Applicant, DocumentRejection, DocumentType, PassportExtract, RedFlag } from '../api/types.js';
import { decodeText, type DocumentFormat, detectFormat, startsWith } from '../documents/format.js';
import { findMrz, parseMrz, type MrzReading } from './mrz.js';
import { applicantMismatchFlags, checkDigitFlags, expiryFlags } from './passport-flags.js';
import { scanPdfForActiveContent } from './pdf-active-content.js';

/** A check worker's first message: its modules are loaded and the check begins. */
export const CHECK_STARTED = 'started';

export type DocumentCheck = { ok: true; contentType: DocumentFormat; text: string | undefined } | { ok: false; rejection: DocumentRejection };

export interface DocumentAnalysisInput {
  type: DocumentType;
  /** The document's text; `undefined` for images, which the sandbox does not OCR. */
  text: string | undefined;
  applicant?: Applicant | undefined;
  /** YYYY-MM-DD */
  today: string;
}

export interface DocumentAnalysis {
  red_flags: RedFlag[];
  extracted: PassportExtract | null;
}

const ACCEPTED_FORMATS = 'only PDF, JPEG, PNG and UTF-8 text are accepted';

const PNG_END_CHUNK = Buffer.from([0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]); // "IEND" and its CRC
const JPEG_START_OF_SCAN = Buffer.from([0xff, 0xda]);
const JPEG_END_OF_IMAGE = Buffer.from([0xff, 0xd9]);
const ZIP_SIGNATURE = [0x50, 0x4b, 0x03, 0x04];

/** Formats that are recognised only to tell the uploader what their rejected file is. */
const UNSUPPORTED_SIGNATURES: Array<{ signature: number[]; description: string }> = [
  { signature: [0x4d, 0x5a], description: 'a Windows executable' },
  { signature: [0x7f, 0x45, 0x4c, 0x46], description: 'a Linux or Unix executable (ELF)' },
  { signature: [0xfe, 0xed, 0xfa, 0xce], description: 'a macOS executable (Mach-O)' },
  { signature: [0xfe, 0xed, 0xfa, 0xcf], description: 'a macOS executable (Mach-O)' },
  { signature: [0xce, 0xfa, 0xed, 0xfe], description: 'a macOS executable (Mach-O)' },
  { signature: [0xcf, 0xfa, 0xed, 0xfe], description: 'a macOS executable (Mach-O)' },
  { signature: [0xca, 0xfe, 0xba, 0xbe], description: 'a macOS universal executable or a Java class file' },
  { signature: [0x50, 0x4b, 0x05, 0x06], description: 'an empty ZIP archive' },
  { signature: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], description: 'a legacy Microsoft Office document' },
  { signature: [0x1f, 0x8b], description: 'a gzip archive' },
  { signature: [0x52, 0x61, 0x72, 0x21], description: 'a RAR archive' },
  { signature: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], description: 'a 7-Zip archive' },
  { signature: [0x47, 0x49, 0x46, 0x38], description: 'a GIF image' },
];

const MRZ_NOT_FOUND: RedFlag = { code: 'mrz_not_found', message: 'no machine-readable zone could be read; a person must check this passport' };
const DOCUMENT_EMPTY: RedFlag = { code: 'document_empty', message: 'the document contains no text' };

/** How many leading bytes `rejectionByStart` reads: the longest signature it knows. */
export const SIGNATURE_BYTES = Math.max(...UNSUPPORTED_SIGNATURES.map(({ signature }) => signature.length));

/**
 * The rejection of a file that its first bytes condemn (empty, or a format recognised as unsupported):
 * decided without reading the rest, so such a file need not wait behind the checks of others.
 */
export function rejectionByStart(start: Uint8Array): DocumentCheck | undefined {
  if (start.length === 0) return rejected('empty_file', 'the file is empty');
  const recognised = UNSUPPORTED_SIGNATURES.find(({ signature }) => startsWith(start, signature))?.description;
  return recognised ? rejected('unsupported_format', `the file is ${recognised}; ${ACCEPTED_FORMATS}`) : undefined;
}

/**
 * The format and safety check of an upload: the format by content, PDFs free of active content, images
 * complete, and the text a later analysis reads (a PDF's via unpdf, loaded only when a PDF arrives).
 */
export async function checkDocument(bytes: Uint8Array): Promise<DocumentCheck> {
  const condemned = rejectionByStart(bytes.subarray(0, SIGNATURE_BYTES));
  if (condemned) return condemned;
  const format = detectFormat(bytes);
  switch (format) {
    case undefined: {
      const recognised = describeUnsupported(bytes);
      return rejected(
        'unsupported_format',
        recognised ? `the file is ${recognised}; ${ACCEPTED_FORMATS}` : `the file's format was not recognised; ${ACCEPTED_FORMATS}`,
      );
    }
    case 'text/plain':
      return { ok: true, contentType: format, text: decodeText(bytes) };
    case 'image/png':
      if (asBuffer(bytes).includes(PNG_END_CHUNK)) return { ok: true, contentType: format, text: undefined };
      return rejected('unreadable', 'the PNG image is incomplete: its end chunk (IEND) is missing');
    case 'image/jpeg':
      if (jpegIsComplete(bytes)) return { ok: true, contentType: format, text: undefined };
      return rejected('unreadable', 'the JPEG image is incomplete: its end marker (EOI) is missing');
    case 'application/pdf':
      return checkPdf(bytes);
  }
}

/**
 * Red flags of an accepted document, and the fields read from a passport's MRZ. `applicant` is the
 * profile the document belongs to, if any; `today` (YYYY-MM-DD) is the day expiry is judged against.
 */
export function analyseDocument(input: DocumentAnalysisInput): DocumentAnalysis {
  if (input.type === 'passport') return analysePassport(input);
  const blank = input.text !== undefined && input.text.trim() === '';
  return { red_flags: blank ? [DOCUMENT_EMPTY] : [], extracted: null };
}

function analysePassport({ text, applicant, today }: DocumentAnalysisInput): DocumentAnalysis {
  const lines = text === undefined ? undefined : findMrz(text);
  if (lines === undefined) return { red_flags: [MRZ_NOT_FOUND], extracted: null };
  const reading = parseMrz(lines, today);
  const red_flags = [
    ...checkDigitFlags(reading.check_digits),
    ...(reading.nationality === undefined
      ? [{ code: 'mrz_unknown_nationality', message: `the machine-readable zone's nationality code ${reading.nationality_code} is not a known country` }]
      : []),
    ...expiryFlags(reading.expiry_date, today),
    ...(applicant ? applicantMismatchFlags(reading, applicant) : []),
  ];
  return { red_flags, extracted: extractOf(reading) };
}

/** An MRZ whose nationality is not a known state is invalid: nothing is extracted from it. */
function extractOf(reading: MrzReading): PassportExtract | null {
  if (reading.nationality === undefined) return null;
  return {
    document_number: reading.document_number,
    nationality: reading.nationality,
    surname: reading.surname,
    given_names: reading.given_names,
    date_of_birth: reading.date_of_birth,
    expiry_date: reading.expiry_date,
    sex: reading.sex,
    check_digits_valid: reading.check_digits_valid,
  };
}

async function checkPdf(bytes: Uint8Array): Promise<DocumentCheck> {
  const scan = scanPdfForActiveContent(bytes);
  if (scan.verdict === 'active_content')
    return rejected('unsafe_content', `the PDF contains active content (/${scan.name}); only static documents are accepted`);
  if (scan.verdict === 'damaged') return rejected('unreadable', 'the PDF has a damaged compressed object stream');
  const text = await pdfText(bytes);
  if (text === undefined) return rejected('unreadable', 'the PDF could not be opened; it may be damaged or password-protected');
  return { ok: true, contentType: 'application/pdf', text };
}

async function pdfText(bytes: Uint8Array): Promise<string | undefined> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  try {
    // A copy: PDF.js takes over the buffer it is given. No eval: fonts are never compiled to code.
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0, isEvalSupported: false });
    try {
      return (await extractText(pdf, { mergePages: true })).text;
    } finally {
      await pdf.destroy();
    }
  } catch {
    return undefined;
  }
}

/** The main image's end marker must follow its last start-of-scan; an embedded thumbnail's markers come earlier. */
function jpegIsComplete(bytes: Uint8Array): boolean {
  const buffer = asBuffer(bytes);
  const lastScan = buffer.lastIndexOf(JPEG_START_OF_SCAN);
  return lastScan !== -1 && buffer.lastIndexOf(JPEG_END_OF_IMAGE) > lastScan;
}

/** A ZIP archive's description needs its whole content; the other unsupported formats are condemned by `rejectionByStart`. */
function describeUnsupported(bytes: Uint8Array): string | undefined {
  if (!startsWith(bytes, ZIP_SIGNATURE)) return undefined;
  // Word, Excel and PowerPoint files are ZIP archives led by this part list.
  return asBuffer(bytes).includes('[Content_Types].xml') ? 'a Microsoft Office document (a ZIP archive)' : 'a ZIP archive';
}

/** The text of valid UTF-8 without control characters other than tab, line feed, form feed and carriage return. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function rejected(code: string, message: string): DocumentCheck {
  return { ok: false, rejection: { code, message } };
}
