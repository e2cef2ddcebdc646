/**
 * What the kit sends when it needs an applicant, a report and a document, unless `--fixtures`
 * gives others: openapi.yaml's shapes (the applicant fields, visa types and upload encoding are not
 * shown by the specification).
 */
import type { ApplicantInput } from '../api/types.js';

export const SAMPLE_APPLICANT = {
  given_names: 'Anna Maria',
  surname: 'Eriksson',
  date_of_birth: '1984-08-12',
  nationality: 'SE',
  passport_number: 'L898902C3',
  passport_expiry: '2039-08-11',
  occupation: 'Software engineer',
  employment_status: 'employed',
  monthly_income: 4800,
  savings: 21000,
  currency: 'EUR',
  travel_history: [
    { country: 'US', year: 2019, overstayed: false },
    { country: 'JP', year: 2023, overstayed: false },
  ],
  previous_refusals: 0,
} satisfies ApplicantInput;

/** The report the kit asks for, but its applicant: destination, visa type and purpose, for an applicant from another country. */
export const SAMPLE_REPORT = {
  destination: 'DE',
  visa_type: 'tourist',
  purpose: 'Two weeks of holiday in Berlin and Munich, visiting museums',
} as const;

/** The four fields of part 4. */
export function sampleReportRequest(applicantId: string): Record<string, string> {
  return { applicant_id: applicantId, ...SAMPLE_REPORT };
}

/** The machine-readable zone (ICAO 9303 TD3) of the sample applicant's passport. */
const SAMPLE_MRZ = ['P<SWEERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36SWE8408129F3908118<<<<<<<<<<<<<<<4'] as const;

function escapePdfText(text: string): string {
  return text.replace(/[\\()]/g, (character) => `\\${character}`);
}

/**
 * A one-page PDF whose text layer holds a passport's visual zone and its MRZ, in Courier, as a
 * scanner with OCR makes it: the most widely accepted form of a scanned document.
 */
export function samplePassportPdf(): Uint8Array {
  const lines = ['PASSPORT - KINGDOM OF SWEDEN (sample)', 'ERIKSSON, ANNA MARIA', '', SAMPLE_MRZ[0], SAMPLE_MRZ[1]];
  const text = lines.map((line, index) => `BT /F1 11 Tf 40 ${360 - index * 18} Td (${escapePdfText(line)}) Tj ET`).join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 400] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>',
    `<< /Length ${Buffer.byteLength(text, 'latin1')} >>\nstream\n${text}\nendstream`,
  ];
  let pdf = '%PDF-1.4\n%\xE2\xE3\xCF\xD3\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(pdf, 'latin1'));
    pdf += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(pdf, 'latin1');
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(pdf, 'latin1'));
}

/**
 * A file that fails any format and safety check: the start of a Windows executable (the "MZ"
 * header and the DOS stub's message), sent as a passport.
 */
export function sampleUnsafeFile(): Uint8Array {
  const bytes = Buffer.alloc(512);
  bytes.write('MZ', 0, 'latin1');
  bytes.writeUInt32LE(0x80, 0x3c);
  bytes.write('This program cannot be run in DOS mode.\r\r\n$', 0x4e, 'latin1');
  bytes.write('PE\0\0', 0x80, 'latin1');
  return new Uint8Array(bytes);
}
