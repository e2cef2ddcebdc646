import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import { constants, crc32, deflateRawSync, deflateSync } from 'node:zlib';
import type { Applicant } from '../../src/api/types.js';
import { buildMrz, type MrzFields } from '../../src/sandbox/mrz.js';

export const TODAY = '2026-03-01';

/** Erika Mustermann, German, employed, well travelled: a low-risk profile that tests change one field at a time. */
export function applicant(overrides: Partial<Applicant> = {}): Applicant {
  return {
    id: 'app_erika',
    object: 'applicant',
    given_names: 'Erika',
    surname: 'Mustermann',
    date_of_birth: '1983-08-12',
    nationality: 'DE',
    passport_number: 'C01X00T47',
    passport_expiry: '2031-10-31',
    occupation: 'Engineer',
    employment_status: 'employed',
    monthly_income: 4_000,
    savings: 20_000,
    currency: 'EUR',
    travel_history: [
      { country: 'GB', year: 2022, overstayed: false },
      { country: 'FR', year: 2023, overstayed: false },
      { country: 'US', year: 2019, overstayed: false },
    ],
    previous_refusals: 0,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

/** The MRZ fields of the fixture applicant's passport. */
export function passportFields(overrides: Partial<MrzFields> = {}): MrzFields {
  return {
    document_number: 'C01X00T47',
    nationality: 'DE',
    surname: 'Mustermann',
    given_names: 'Erika',
    date_of_birth: '1983-08-12',
    expiry_date: '2031-10-31',
    sex: 'F',
    ...overrides,
  };
}

/** The text a passport scan yields: a visual zone, then the MRZ. */
export function passportText(overrides: Partial<MrzFields> = {}): string {
  const { line1, line2 } = buildMrz(passportFields(overrides));
  return `REISEPASS / PASSPORT\nBundesrepublik Deutschland\n\n${line1}\n${line2}\n`;
}

/** A one-page PDF with each line drawn in Courier, as a scanner with a text layer makes it. */
export async function pdfWithLines(lines: string[], options: { javascript?: string; attachment?: string; objectStreams?: boolean } = {}): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([600, 400]);
  const font = await pdf.embedFont(StandardFonts.Courier);
  lines.forEach((line, index) => page.drawText(line, { x: 20, y: 360 - index * 16, size: 10, font }));
  if (options.javascript !== undefined) pdf.addJavaScript('onOpen', options.javascript);
  if (options.attachment !== undefined) await pdf.attach(new TextEncoder().encode(options.attachment), 'attachment.txt', { mimeType: 'text/plain' });
  return pdf.save({ useObjectStreams: options.objectStreams ?? true });
}

function pngChunk(type: string, data: Uint8Array): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/** A valid 1×1 grey PNG. */
export function png(): Uint8Array {
  const header = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]); // 1×1, 8-bit greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.from([0, 0x80]))),
    pngChunk('IEND', new Uint8Array()),
  ]);
}

/**
 * The marker structure of a baseline JPEG: SOI, an APP1 segment holding a thumbnail (with its own SOS and
 * EOI, as EXIF thumbnails have), the main image's SOS, entropy-coded data, EOI.
 */
export function jpeg(): Uint8Array {
  const thumbnail = [0xff, 0xd8, 0xff, 0xda, 0x00, 0x02, 0x11, 0x22, 0xff, 0xd9];
  const app1 = [0xff, 0xe1, 0x00, thumbnail.length + 2, ...thumbnail];
  const scan = [0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00, 0x12, 0x34, 0xff, 0x00, 0x56];
  return Uint8Array.from([0xff, 0xd8, ...app1, ...scan, 0xff, 0xd9]);
}

const MIB = 1024 * 1024;

/** 10 MiB, the upload limit, of `%PDF-1.7`, one object, then `stream` lines: an hour for a scan that looks back from every stream. */
export function streamKeywordsPdf(): Buffer {
  const header = '%PDF-1.7\n1 0 obj\n';
  const unit = 'stream\n';
  return Buffer.from(header + unit.repeat(Math.floor((10 * MIB - header.length) / unit.length)), 'latin1');
}

/**
 * A valid one-page PDF, a few KiB per MiB of content, whose page content is `unit` repeated to `mib`
 * MiB: a decompression bomb for whatever reads the page. The FlateDecode data is one compressed MiB
 * repeated (each copy ends in a full flush, so it stands alone), without the checksum PDF readers skip.
 */
export async function pdfWithRepeatedContent(unit: string, mib: number): Promise<Uint8Array> {
  const oneMib = deflateRawSync(unit.repeat(Math.floor(MIB / unit.length)), { finishFlush: constants.Z_FULL_FLUSH });
  const zlibHeader = Buffer.from([0x78, 0x01]);
  const finalEmptyBlock = Buffer.from([0x03, 0x00]);
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([600, 400]);
  const content = pdf.context.stream(Buffer.concat([zlibHeader, ...Array<Buffer>(mib).fill(oneMib), finalEmptyBlock]), { Filter: 'FlateDecode' });
  page.node.set(PDFName.of('Contents'), pdf.context.register(content));
  return pdf.save();
}
