import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { detectFormat } from '../../src/documents/format.js';
import { analyseDocument, checkDocument, type DocumentCheck } from '../../src/sandbox/document-check.js';
import { buildMrz, findMrz } from '../../src/sandbox/mrz.js';
import { applicant, jpeg, passportFields, passportText, pdfWithLines, png, TODAY } from './fixtures.js';

const encode = (text: string) => new TextEncoder().encode(text);
const bytesOf = (...values: number[]) => Uint8Array.from(values);

function rejectionOf(check: DocumentCheck) {
  if (check.ok) throw new Error(`expected a rejection, got ${check.contentType}`);
  return check.rejection;
}

function accepted(check: DocumentCheck) {
  if (!check.ok) throw new Error(`expected acceptance, got ${check.rejection.code}: ${check.rejection.message}`);
  return check;
}

/** A PDF as plain text: enough for the safety scan, which runs before PDF.js opens anything. */
function rawPdf(body: string): Uint8Array {
  return encode(`%PDF-1.7\n${body}\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n`);
}

describe('detectFormat', () => {
  it('recognises PDF, JPEG and PNG by their magic bytes alone', async () => {
    expect(detectFormat(await pdfWithLines(['hello']))).toBe('application/pdf');
    expect(detectFormat(jpeg())).toBe('image/jpeg');
    expect(detectFormat(png())).toBe('image/png');
  });

  it('needs the whole signature: a PNG signature cut short is not a PNG', () => {
    expect(detectFormat(png().slice(0, 7))).toBeUndefined();
    expect(detectFormat(bytesOf(0xff, 0xd8))).toBeUndefined();
  });

  it('takes UTF-8 text with tabs, line ends and form feeds, in any script, for text', () => {
    expect(detectFormat(encode('Name:\tErika Mustermann\r\nStraße 1, Köln\f\n東京 Ωμέγα\n'))).toBe('text/plain');
  });

  it('does not take bytes that are not valid UTF-8 for text (Latin-1 é)', () => {
    expect(detectFormat(bytesOf(0x43, 0x61, 0x66, 0xe9))).toBeUndefined();
  });

  it('does not take UTF-8 with any other C0 or C1 control character, or DEL, for text', () => {
    const allowed = new Set([0x09, 0x0a, 0x0c, 0x0d]);
    const controls = [...Array.from({ length: 0x20 }, (_, code) => code), ...Array.from({ length: 0x21 }, (_, offset) => 0x7f + offset)];
    for (const code of controls) {
      const expected = allowed.has(code) ? 'text/plain' : undefined;
      expect({ code, format: detectFormat(encode(`a${String.fromCharCode(code)}b`)) }).toEqual({ code, format: expected });
    }
  });

  it('gives nothing for no bytes', () => {
    expect(detectFormat(new Uint8Array())).toBeUndefined();
  });
});

describe('checkDocument: format', () => {
  it('rejects an empty file', async () => {
    expect(rejectionOf(await checkDocument(new Uint8Array()))).toEqual({ code: 'empty_file', message: 'the file is empty' });
  });

  it('accepts text and hands back the decoded text, without a byte order mark', async () => {
    const check = accepted(await checkDocument(Uint8Array.from([0xef, 0xbb, 0xbf, ...encode('Kontoauszug: 12.000 €\n')])));
    expect(check).toEqual({ ok: true, contentType: 'text/plain', text: 'Kontoauszug: 12.000 €\n' });
  });

  it('accepts text that merely mentions markup', async () => {
    expect(accepted(await checkDocument(encode('<html><script>alert(1)</script></html>'))).contentType).toBe('text/plain');
  });

  it.each([
    ['a Windows executable', [0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00]],
    ['a Linux or Unix executable (ELF)', [0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]],
    ['a macOS executable (Mach-O)', [0xcf, 0xfa, 0xed, 0xfe, 0x07, 0x00, 0x00, 0x01]],
    ['a ZIP archive', [0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, ...encode('notes.txt')]],
    ['a Microsoft Office document (a ZIP archive)', [0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, ...encode('[Content_Types].xml')]],
    ['a legacy Microsoft Office document', [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0x00]],
    ['a GIF image', [...encode('GIF89a'), 0x01, 0x00, 0x01, 0x00, 0x00]],
  ])('rejects %s as an unsupported format, saying what it is', async (description, bytes) => {
    expect(rejectionOf(await checkDocument(Uint8Array.from(bytes)))).toEqual({
      code: 'unsupported_format',
      message: `the file is ${description}; only PDF, JPEG, PNG and UTF-8 text are accepted`,
    });
  });

  it('rejects unrecognised binary content as an unsupported format', async () => {
    expect(rejectionOf(await checkDocument(bytesOf(0x00, 0x01, 0x02, 0xfe, 0xff)))).toEqual({
      code: 'unsupported_format',
      message: "the file's format was not recognised; only PDF, JPEG, PNG and UTF-8 text are accepted",
    });
  });

  it('rejects non-UTF-8 text as an unsupported format', async () => {
    expect(rejectionOf(await checkDocument(bytesOf(0x4e, 0x61, 0x6d, 0x65, 0x3a, 0x20, 0x4a, 0xfc, 0x72, 0x67, 0x65, 0x6e))).code).toBe('unsupported_format');
  });

  it('accepts complete images, with no text (the sandbox does no OCR)', async () => {
    expect(accepted(await checkDocument(png()))).toEqual({ ok: true, contentType: 'image/png', text: undefined });
    expect(accepted(await checkDocument(jpeg()))).toEqual({ ok: true, contentType: 'image/jpeg', text: undefined });
  });

  it('rejects a truncated PNG as unreadable', async () => {
    const truncated = png().slice(0, -12);
    expect(rejectionOf(await checkDocument(truncated))).toEqual({
      code: 'unreadable',
      message: 'the PNG image is incomplete: its end chunk (IEND) is missing',
    });
  });

  it('rejects a truncated JPEG as unreadable, even though its thumbnail has an end marker', async () => {
    const truncated = jpeg().slice(0, -2);
    expect(rejectionOf(await checkDocument(truncated))).toEqual({
      code: 'unreadable',
      message: 'the JPEG image is incomplete: its end marker (EOI) is missing',
    });
  });

  it('checks a view into a larger buffer by its own bytes only', async () => {
    const backing = new Uint8Array([0x4d, 0x5a, ...png()]);
    expect(accepted(await checkDocument(backing.subarray(2))).contentType).toBe('image/png');
  });
});

describe('checkDocument: PDF', () => {
  let consoleSpies: MockInstance[] = [];
  beforeEach(() => {
    consoleSpies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) => vi.spyOn(console, method));
  });
  afterEach(() => {
    for (const spy of consoleSpies) expect(spy).not.toHaveBeenCalled();
    vi.restoreAllMocks();
  });

  it('extracts the text of a real PDF, in which the passport MRZ is then found', async () => {
    const { line1, line2 } = buildMrz(passportFields());
    const check = accepted(await checkDocument(await pdfWithLines(['REISEPASS / PASSPORT', 'Mustermann, Erika', line1, line2])));
    expect(check.contentType).toBe('application/pdf');
    expect(check.text).toContain('Mustermann, Erika');
    expect(findMrz(check.text ?? '')).toEqual({ line1, line2 });
  });

  it('merges the pages of a PDF', async () => {
    const { PDFDocument, StandardFonts } = await import('pdf-lib');
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    pdf.addPage().drawText('first page', { x: 20, y: 700, font });
    pdf.addPage().drawText('second page', { x: 20, y: 700, font });
    const text = accepted(await checkDocument(await pdf.save())).text ?? '';
    expect(text).toMatch(/first page[\s\S]*second page/);
  });

  it('accepts a PDF whose text merely talks about JavaScript', async () => {
    expect(accepted(await checkDocument(await pdfWithLines(['See the /JavaScript guide at https://example.org/JS']))).text).toContain('JavaScript guide');
  });

  it('rejects a PDF with JavaScript hidden in a compressed object stream as unsafe', async () => {
    const pdf = await pdfWithLines(['Invoice'], { javascript: 'app.alert("hello")', objectStreams: true });
    expect(Buffer.from(pdf).toString('latin1')).not.toContain('/JavaScript');
    expect(rejectionOf(await checkDocument(pdf))).toEqual({
      code: 'unsafe_content',
      message: 'the PDF contains active content (/JavaScript); only static documents are accepted',
    });
  });

  it('rejects a PDF with JavaScript in a plain dictionary as unsafe', async () => {
    const pdf = await pdfWithLines(['Invoice'], { javascript: 'app.alert("hello")', objectStreams: false });
    expect(rejectionOf(await checkDocument(pdf)).code).toBe('unsafe_content');
  });

  it('rejects a PDF with an attached file as unsafe', async () => {
    expect(rejectionOf(await checkDocument(await pdfWithLines(['Invoice'], { attachment: 'payload' })))).toEqual({
      code: 'unsafe_content',
      message: 'the PDF contains active content (/EmbeddedFile); only static documents are accepted',
    });
  });

  it.each([
    ['/JavaScript', '1 0 obj\n<< /Type /Catalog /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >>\nendobj'],
    ['/JS', '1 0 obj\n<< /Type /Action /S /Foo /JS 2 0 R >>\nendobj'],
    ['/Launch', '1 0 obj\n<< /Type /Catalog /OpenAction << /S /Launch /F (cmd.exe) >> >>\nendobj'],
    ['/EmbeddedFile', '1 0 obj\n<< /Type /EmbeddedFile /Length 0 >>\nstream\n\nendstream\nendobj'],
    ['/RichMedia', '1 0 obj\n<< /Type /Annot /Subtype /RichMedia >>\nendobj'],
    ['/XFA', '1 0 obj\n<< /Type /Catalog /AcroForm << /XFA 2 0 R >> >>\nendobj'],
    ['/JavaScript', '1 0 obj\n<< /Type /Catalog /OpenAction << /S /J#61va#53cript >> >>\nendobj'],
  ])('rejects a PDF containing %s as unsafe', async (name, body) => {
    expect(rejectionOf(await checkDocument(rawPdf(body)))).toEqual({
      code: 'unsafe_content',
      message: `the PDF contains active content (${name}); only static documents are accepted`,
    });
  });

  it('does not mistake a longer name that starts with JS for /JS', async () => {
    const { PDFDocument, PDFName, PDFString } = await import('pdf-lib');
    const pdf = await PDFDocument.create();
    pdf.addPage();
    pdf.catalog.set(PDFName.of('JSONData'), PDFString.of('{}'));
    const bytes = await pdf.save({ useObjectStreams: false });
    expect(Buffer.from(bytes).toString('latin1')).toContain('/JSONData');
    expect(accepted(await checkDocument(bytes)).contentType).toBe('application/pdf');
  });

  it('rejects a PDF whose compressed object stream cannot be inflated as unreadable', async () => {
    const pdf = rawPdf('1 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length 12 >>\nstream\nnot deflated\nendstream\nendobj');
    expect(rejectionOf(await checkDocument(pdf))).toEqual({ code: 'unreadable', message: 'the PDF has a damaged compressed object stream' });
  });

  it('rejects a PDF that PDF.js cannot open as unreadable', async () => {
    expect(rejectionOf(await checkDocument(encode('%PDF-1.7\nthis is not a PDF at all\n')))).toEqual({
      code: 'unreadable',
      message: 'the PDF could not be opened; it may be damaged or password-protected',
    });
  });
});

describe('analyseDocument: passport', () => {
  const base = { type: 'passport' as const, today: TODAY };

  it('reads the MRZ and finds nothing wrong with a valid passport matching the profile', () => {
    expect(analyseDocument({ ...base, text: passportText(), applicant: applicant() })).toEqual({
      red_flags: [],
      extracted: {
        document_number: 'C01X00T47',
        nationality: 'DE',
        surname: 'MUSTERMANN',
        given_names: 'ERIKA',
        date_of_birth: '1983-08-12',
        expiry_date: '2031-10-31',
        sex: 'F',
        check_digits_valid: true,
      },
    });
  });

  it('gives the same answer for the same input', () => {
    const input = { ...base, text: passportText({ expiry_date: '2026-05-01' }), applicant: applicant({ surname: 'Musterfrau' }) };
    expect(analyseDocument(input)).toEqual(analyseDocument(structuredClone(input)));
  });

  it('flags a passport without text (an image) as needing a person to check it', () => {
    expect(analyseDocument({ ...base, text: undefined })).toEqual({
      red_flags: [{ code: 'mrz_not_found', message: 'no machine-readable zone could be read; a person must check this passport' }],
      extracted: null,
    });
  });

  it('flags a passport whose text has no MRZ', () => {
    expect(analyseDocument({ ...base, text: 'REISEPASS\nMustermann, Erika\n' }).red_flags.map((flag) => flag.code)).toEqual(['mrz_not_found']);
  });

  it('flags check digits that do not match, saying which', () => {
    const { line1, line2 } = buildMrz(passportFields());
    const brokenNumber = `${line1}\n${line2.replace('C01X00T47', 'C01X00T48')}`;
    const { red_flags, extracted } = analyseDocument({ ...base, text: brokenNumber });
    expect(red_flags).toEqual([
      {
        code: 'mrz_check_digit_mismatch',
        message:
          "the machine-readable zone's check digits of the document number and whole zone (composite) do not match; the passport may be misread or altered",
      },
    ]);
    expect(extracted?.check_digits_valid).toBe(false);
  });

  it('names a single failing check digit in the singular', () => {
    const { line1, line2 } = buildMrz(passportFields());
    const brokenComposite = `${line1}\n${line2.slice(0, 43)}${(Number(line2.charAt(43)) + 1) % 10}`;
    expect(analyseDocument({ ...base, text: brokenComposite }).red_flags[0]?.message).toBe(
      "the machine-readable zone's check digit of the whole zone (composite) does not match; the passport may be misread or altered",
    );
  });

  it('flags an expired passport', () => {
    expect(analyseDocument({ ...base, text: passportText({ expiry_date: '2026-02-28' }) }).red_flags).toEqual([
      { code: 'passport_expired', message: 'the passport expired on 2026-02-28' },
    ]);
  });

  it('flags a passport expiring within 6 months, counting the expiry day itself as valid', () => {
    expect(analyseDocument({ ...base, text: passportText({ expiry_date: TODAY }) }).red_flags).toEqual([
      { code: 'passport_expires_soon', message: 'the passport expires on 2026-03-01, within 6 months of 2026-03-01' },
    ]);
    expect(analyseDocument({ ...base, text: passportText({ expiry_date: '2026-08-31' }) }).red_flags.map((flag) => flag.code)).toEqual([
      'passport_expires_soon',
    ]);
    expect(analyseDocument({ ...base, text: passportText({ expiry_date: '2026-09-01' }) }).red_flags).toEqual([]);
  });

  it.each([
    ['name_mismatch', { surname: 'Musterfrau' }, "the name in the passport (MUSTERMANN, ERIKA) differs from the applicant's (Musterfrau, Erika)"],
    ['date_of_birth_mismatch', { date_of_birth: '1983-08-21' }, "the date of birth in the passport (1983-08-12) differs from the applicant's (1983-08-21)"],
    ['nationality_mismatch', { nationality: 'AT' }, "the nationality in the passport (DE) differs from the applicant's (AT)"],
    ['passport_number_mismatch', { passport_number: 'C01X00T48' }, "the passport number in the passport (C01X00T47) differs from the applicant's (C01X00T48)"],
    ['passport_expiry_mismatch', { passport_expiry: '2031-10-30' }, "the expiry date in the passport (2031-10-31) differs from the applicant's (2031-10-30)"],
  ])('flags %s against the profile', (code, profile, message) => {
    expect(analyseDocument({ ...base, text: passportText(), applicant: applicant(profile) }).red_flags).toEqual([{ code, message }]);
  });

  it('compares names as the MRZ writes them: case, hyphens, spaces and apostrophes folded, ICAO transliteration', () => {
    const text = passportText({ surname: "Müller-O'Brien", given_names: 'Hans Jürgen' });
    for (const [surname, given_names] of [
      ['müller-o’brien', 'hans  jürgen'],
      ['MUELLER-OBRIEN', 'Hans-Juergen'],
    ] as const) {
      const profile = applicant({ surname, given_names, passport_number: null, passport_expiry: null });
      expect(analyseDocument({ ...base, text, applicant: profile }).red_flags).toEqual([]);
    }
    const other = applicant({ surname: 'Müller', given_names: 'Hans Jürgen', passport_number: null, passport_expiry: null });
    expect(analyseDocument({ ...base, text, applicant: other }).red_flags.map((flag) => flag.code)).toEqual(['name_mismatch']);
  });

  it('also accepts a passport that drops accents instead of transliterating them', () => {
    const text = passportText({ surname: 'Muller', given_names: 'Hans Jurgen' });
    const profile = applicant({ surname: 'Müller', given_names: 'Hans Jürgen', passport_number: null, passport_expiry: null });
    expect(analyseDocument({ ...base, text, applicant: profile }).red_flags).toEqual([]);
  });

  it('compares a long name as the MRZ cuts it', () => {
    const long = { surname: 'Wolfeschlegelsteinhausenbergerdorff', given_names: 'Hubert Blaine' };
    const profile = applicant({ ...long, passport_number: null, passport_expiry: null });
    expect(analyseDocument({ ...base, text: passportText(long), applicant: profile }).red_flags).toEqual([]);
  });

  it('skips profile fields that are not set', () => {
    const profile = applicant({ passport_number: null, passport_expiry: null });
    expect(analyseDocument({ ...base, text: passportText({ document_number: 'X1234567' }), applicant: profile }).red_flags).toEqual([]);
  });

  it('treats an MRZ with an unknown nationality code as invalid: flagged, nothing extracted', () => {
    const { line1, line2 } = buildMrz(passportFields());
    const stateless = `${line1}\n${line2.slice(0, 10)}XXA${line2.slice(13)}`;
    expect(analyseDocument({ ...base, text: stateless })).toEqual({
      red_flags: [{ code: 'mrz_unknown_nationality', message: "the machine-readable zone's nationality code XXA is not a known country" }],
      extracted: null,
    });
  });

  it('raises every flag that applies, in a fixed order', () => {
    const { line1, line2 } = buildMrz(passportFields({ expiry_date: '2026-04-01' }));
    const text = `${line1}\n${line2.slice(0, 43)}${(Number(line2.charAt(43)) + 1) % 10}`;
    const codes = analyseDocument({ ...base, text, applicant: applicant({ surname: 'Musterfrau' }) }).red_flags.map((flag) => flag.code);
    expect(codes).toEqual(['mrz_check_digit_mismatch', 'passport_expires_soon', 'name_mismatch', 'passport_expiry_mismatch']);
  });
});

describe('analyseDocument: other documents', () => {
  it('flags a document whose text is blank', () => {
    expect(analyseDocument({ type: 'bank_statement', text: ' \n\t\r\n', today: TODAY })).toEqual({
      red_flags: [{ code: 'document_empty', message: 'the document contains no text' }],
      extracted: null,
    });
  });

  it('finds nothing wrong with a document that has text, or is an image', () => {
    expect(analyseDocument({ type: 'invitation_letter', text: 'Dear Ms Mustermann, …', today: TODAY })).toEqual({ red_flags: [], extracted: null });
    expect(analyseDocument({ type: 'bank_statement', text: undefined, today: TODAY })).toEqual({ red_flags: [], extracted: null });
  });

  it('does not look for an MRZ in other documents', () => {
    expect(analyseDocument({ type: 'other', text: passportText({ expiry_date: '2020-01-01' }), applicant: applicant(), today: TODAY })).toEqual({
      red_flags: [],
      extracted: null,
    });
  });
});
