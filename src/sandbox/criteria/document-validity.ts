import type { PassportExtract } from '../../api/types.js';
import { applicantMismatchFlags, expiryFlags, PASSPORT_VALIDITY_MONTHS } from '../passport-flags.js';
import { listed } from '../wording.js';
import type { Assessment, ReportAnalysisInput } from './types.js';

/** Risk points of each problem; the score is their sum, at most 100. */
const DOCUMENT_VALIDITY_POINTS = {
  no_passport: 80,
  mrz_unreadable: 50,
  expired: 100,
  expires_soon: 50,
  check_digits_invalid: 40,
  per_profile_mismatch: 30,
} as const;

interface Problem {
  points: number;
  fact: string;
  advice: string;
}

/**
 * The passport: uploaded, its MRZ read, check digits valid, not expiring within 6 months of today,
 * matching the profile. Expiry and the comparison with the profile are judged now, not at upload: time
 * passes and profiles get corrected. Of several passports the one valid longest counts; without a
 * readable one, the profile's passport expiry is judged.
 */
export function assessDocumentValidity({ applicant, documents, today }: ReportAnalysisInput): Assessment {
  const passports = documents.filter((document) => document.type === 'passport');
  const extract = latestExpiring(passports.flatMap((passport) => (passport.extracted ? [passport.extracted] : [])));
  if (extract === undefined) {
    const unverified: Problem =
      passports.length === 0
        ? {
            points: DOCUMENT_VALIDITY_POINTS.no_passport,
            fact: 'no passport uploaded, so identity and validity are unverified',
            advice: "Upload the passport's photo page (PDF or text with its machine-readable zone) so that identity and validity can be verified.",
          }
        : {
            points: DOCUMENT_VALIDITY_POINTS.mrz_unreadable,
            fact: "the passport's machine-readable zone could not be read, so a person must check it",
            advice: "Upload the passport's photo page as a PDF in which the machine-readable zone is legible; an image needs a manual check.",
          };
    return scored([unverified, ...(applicant.passport_expiry === null ? [] : expiryProblems(applicant.passport_expiry, today))]);
  }

  const problems = expiryProblems(extract.expiry_date, today);
  if (!extract.check_digits_valid) {
    problems.push({
      points: DOCUMENT_VALIDITY_POINTS.check_digits_invalid,
      fact: "the passport's MRZ check digits do not match",
      advice: "Have the passport checked: its machine-readable zone's check digits do not match, a sign of a misread or altered document.",
    });
  }
  const mismatchedFields = applicantMismatchFlags(extract, applicant).map((flag) => flag.code.replace(/_mismatch$/, '').replaceAll('_', ' '));
  if (mismatchedFields.length > 0) {
    const differ = mismatchedFields.length === 1 ? 'differs' : 'differ';
    problems.push({
      points: DOCUMENT_VALIDITY_POINTS.per_profile_mismatch * mismatchedFields.length,
      fact: `the passport's ${listed(mismatchedFields)} ${differ} from the profile`,
      advice: `Correct the profile or upload the applicant's own passport: the ${listed(mismatchedFields)} ${differ} from the passport.`,
    });
  }
  const [first, ...rest] = problems;
  if (first === undefined) {
    return {
      score: 0,
      detail: `passport ${extract.document_number} is valid until ${extract.expiry_date}, its MRZ check digits match and it matches the profile`,
      advice: `Keep the passport valid for at least ${PASSPORT_VALIDITY_MONTHS} months beyond the stay.`,
    };
  }
  return scored([first, ...rest]);
}

function expiryProblems(expiry: string, today: string): Problem[] {
  const flag = expiryFlags(expiry, today)[0];
  if (flag?.code === 'passport_expired') {
    return [{ points: DOCUMENT_VALIDITY_POINTS.expired, fact: `the passport expired on ${expiry}`, advice: `Renew the passport: it expired on ${expiry}.` }];
  }
  if (flag?.code === 'passport_expires_soon') {
    return [
      {
        points: DOCUMENT_VALIDITY_POINTS.expires_soon,
        fact: `the passport expires on ${expiry}, within ${PASSPORT_VALIDITY_MONTHS} months`,
        advice: `Renew the passport: it expires on ${expiry}, within ${PASSPORT_VALIDITY_MONTHS} months of today.`,
      },
    ];
  }
  return [];
}

/** The sum of the points, at most 100; the advice of the heaviest problem. */
function scored(problems: [Problem, ...Problem[]]): Assessment {
  const worst = problems.reduce((most, problem) => (problem.points > most.points ? problem : most));
  return {
    score: Math.min(
      100,
      problems.reduce((sum, problem) => sum + problem.points, 0),
    ),
    detail: problems.map((problem) => problem.fact).join('; '),
    advice: worst.advice,
  };
}

function latestExpiring(extracts: PassportExtract[]): PassportExtract | undefined {
  return extracts.reduce<PassportExtract | undefined>(
    (latest, extract) => (latest === undefined || extract.expiry_date > latest.expiry_date ? extract : latest),
    undefined,
  );
}
