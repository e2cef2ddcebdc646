import type { DocumentType, RedFlag } from '../../api/types.js';
import { documentLabel } from '../wording.js';
import type { Assessment, ReportAnalysisInput } from './types.js';

/** Flags that point to a forged, altered or someone else's document. */
const SEVERE_FLAGS: ReadonlySet<string> = new Set([
  'mrz_check_digit_mismatch',
  'mrz_unknown_nationality',
  'passport_expired',
  'name_mismatch',
  'date_of_birth_mismatch',
  'nationality_mismatch',
  'passport_number_mismatch',
]);

/** Risk points per flag; the score is their sum, at most 100. Any other flag (a passport needing a manual check, an empty document, …) is moderate. */
const RED_FLAG_POINTS = { severe: 35, moderate: 20 } as const;

/** Flags named in the detail; the rest are counted, so that the detail stays within openapi.yaml's Criterion.detail. */
const LISTED_FLAGS = 10;

interface LocatedFlag {
  flag: RedFlag;
  document: DocumentType;
  points: number;
}

/** The red flags the document analysis raised, as they were raised: how many, and how serious. */
export function assessDocumentRedFlags({ documents }: ReportAnalysisInput): Assessment {
  const flags: LocatedFlag[] = documents.flatMap((document) =>
    document.red_flags.map((flag) => ({
      flag,
      document: document.type,
      points: SEVERE_FLAGS.has(flag.code) ? RED_FLAG_POINTS.severe : RED_FLAG_POINTS.moderate,
    })),
  );
  const [worst] = [...flags].sort((a, b) => b.points - a.points);
  if (worst === undefined) {
    return {
      score: 0,
      detail: documents.length === 0 ? 'no documents uploaded, so none carries a red flag' : `no red flags on ${countOf(documents.length, 'document')}`,
      advice: 'Keep the documents consistent with the profile.',
    };
  }
  const named = flags.slice(0, LISTED_FLAGS).map(({ flag, document }) => `${flag.code} (${documentLabel(document)})`);
  const listing = [...named, ...(flags.length > LISTED_FLAGS ? [`and ${flags.length - LISTED_FLAGS} more`] : [])].join(', ');
  return {
    score: Math.min(
      100,
      flags.reduce((sum, { points }) => sum + points, 0),
    ),
    detail: `${countOf(flags.length, 'red flag')} on ${countOf(documents.length, 'document')}: ${listing}`,
    advice: `Resolve the documents' red flags and upload corrected documents, first the ${documentLabel(worst.document)}: ${worst.flag.message}.`,
  };
}

function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
