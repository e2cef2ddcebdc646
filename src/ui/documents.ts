import type { Document } from '../api/types.js';
import { renderFields, renderTable } from './table.js';

function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${bytes} bytes` : `${(bytes / 1024 / 1024).toFixed(1)} MiB (${bytes} bytes)`;
}

/** One document with its analysis, as `svc documents get` shows it to people. */
export function renderDocument(document: Document): string {
  const fields: Array<[string, string | null]> = [
    ['id', document.id],
    ['type', document.type],
    ['status', document.status],
    ['applicant', document.applicant_id],
    ['file', `${document.filename}, ${size(document.size_bytes)}`],
    ['content type', document.content_type ?? (document.status === 'processing' ? 'not checked yet' : 'not recognised')],
    ['created', document.created_at],
  ];
  if (document.rejection) fields.push(['rejected', `${document.rejection.code}: ${document.rejection.message}`]);

  const parts = [renderFields(fields)];
  if (document.red_flags.length) {
    parts.push('Red flags', renderTable(['code', 'message'], document.red_flags.map((flag) => [flag.code, flag.message])));
  } else if (document.status === 'analysed') {
    parts.push('No red flags.');
  }
  const passport = document.extracted;
  if (passport) {
    parts.push(
      'Read from the passport (MRZ)',
      renderFields([
        ['document number', passport.document_number],
        ['surname', passport.surname],
        ['given names', passport.given_names],
        ['nationality', passport.nationality],
        ['date of birth', passport.date_of_birth],
        ['expiry date', passport.expiry_date],
        ['sex', passport.sex],
        ['check digits', passport.check_digits_valid ? 'valid' : 'INVALID'],
      ]),
    );
  }
  if (document.status === 'processing') parts.push(`The analysis is not finished yet: \`svc documents get ${document.id}\` shows its outcome later.`);
  return parts.join('\n\n');
}
