import type { DocumentAnswer } from '../api/types.js';
import type { Output } from './io.js';
import { presentFields, renderTable } from './table.js';
import { terminalText } from './terminal-text.js';
import type { TimeView } from './time.js';

function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${bytes} bytes` : `${(bytes / 1024 / 1024).toFixed(1)} MiB (${bytes} bytes)`;
}

function file(document: DocumentAnswer): string | undefined {
  const parts = [document.filename, typeof document.size_bytes === 'number' ? size(document.size_bytes) : undefined].filter(Boolean);
  return parts.length ? parts.join(', ') : undefined;
}

/** The recognised media type; for a null one (the sandbox's), whether it is not checked yet or not recognised. */
function contentType(document: DocumentAnswer): string | undefined {
  if (document.content_type !== null) return document.content_type;
  return document.status === 'processing' ? 'not checked yet' : 'not recognised';
}

/**
 * One document with its analysis, as `svc documents get` shows it to people: the fields the answer
 * carries; those it lacks get no row, those svc does not know are left to --json.
 */
export function renderDocument(document: DocumentAnswer, times: TimeView, out: Output): string {
  const rejection = document.rejection ? [document.rejection.code, document.rejection.message].filter(Boolean).join(': ') : undefined;
  const parts = [
    presentFields(
      [
        ['id', document.id],
        ['type', document.type],
        ['status', document.status],
        ['applicant', document.applicant_id],
        ['file', file(document)],
        ['content type', contentType(document)],
        ['created', times.full(document.created_at)],
        ['rejected', rejection],
      ],
      out,
    ),
  ];
  const redFlags = Array.isArray(document.red_flags) ? document.red_flags : [];
  if (redFlags.length) {
    parts.push(
      'Red flags',
      renderTable(
        ['code', 'message'],
        redFlags.map((flag) => [flag.code, flag.message]),
        out,
      ),
    );
  } else if (document.status === 'analysed') {
    parts.push('No red flags.');
  }
  const passport = document.extracted;
  if (passport) {
    parts.push(
      'Read from the passport (MRZ)',
      presentFields(
        [
          ['document number', passport.document_number],
          ['surname', passport.surname],
          ['given names', passport.given_names],
          ['nationality', passport.nationality],
          ['date of birth', passport.date_of_birth],
          ['expiry date', passport.expiry_date],
          ['sex', passport.sex],
          ['check digits', typeof passport.check_digits_valid === 'boolean' ? (passport.check_digits_valid ? 'valid' : 'INVALID') : undefined],
        ],
        out,
      ),
    );
  }
  if (document.status === 'processing' && document.id)
    parts.push(`The analysis is not finished yet: \`svc documents get ${terminalText(String(document.id))}\` shows its outcome later.`);
  return parts.filter(Boolean).join('\n\n');
}
