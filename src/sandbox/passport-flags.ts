import type { Applicant, PassportExtract, RedFlag } from '../api/types.js';
import { addMonths } from './dates.js';
import { mrzNameField, type MrzCheckDigits } from './mrz.js';
import { listed } from './wording.js';

/** A passport expiring within this many months of today is flagged: many states require 6 months' validity. */
export const PASSPORT_VALIDITY_MONTHS = 6;

/** The fields a passport is compared on; an MRZ reading whose nationality code is unknown has no `nationality`. */
export type PassportIdentity = Pick<PassportExtract, 'document_number' | 'surname' | 'given_names' | 'date_of_birth' | 'expiry_date'> & {
  nationality: string | undefined;
};

const CHECK_DIGIT_FIELDS: Record<keyof MrzCheckDigits, string> = {
  document_number: 'document number',
  date_of_birth: 'date of birth',
  expiry_date: 'expiry date',
  optional_data: 'optional data',
  composite: 'whole zone (composite)',
};

export function expiryFlags(expiryDate: string, today: string): RedFlag[] {
  if (expiryDate < today) return [{ code: 'passport_expired', message: `the passport expired on ${expiryDate}` }];
  if (expiryDate < addMonths(today, PASSPORT_VALIDITY_MONTHS)) {
    return [{ code: 'passport_expires_soon', message: `the passport expires on ${expiryDate}, within ${PASSPORT_VALIDITY_MONTHS} months of ${today}` }];
  }
  return [];
}

export function checkDigitFlags(checkDigits: MrzCheckDigits): RedFlag[] {
  const failed = (Object.keys(CHECK_DIGIT_FIELDS) as Array<keyof MrzCheckDigits>).filter((field) => !checkDigits[field]);
  if (failed.length === 0) return [];
  const fields = failed.map((field) => CHECK_DIGIT_FIELDS[field]);
  const which = fields.length === 1 ? `check digit of the ${fields[0]} does` : `check digits of the ${listed(fields)} do`;
  return [{ code: 'mrz_check_digit_mismatch', message: `the machine-readable zone's ${which} not match; the passport may be misread or altered` }];
}

/**
 * The passport against the applicant's profile. Names are compared as the MRZ writes them (upper case,
 * spaces and hyphens folded, apostrophes dropped, cut at 39 characters), accepting either the ICAO
 * transliteration (`Ü` → `UE`) or the unaccented letter. Fields missing from the profile are not compared.
 */
export function applicantMismatchFlags(passport: PassportIdentity, applicant: Applicant): RedFlag[] {
  const flags: RedFlag[] = [];
  const passportName = mrzNameField(passport.surname, passport.given_names);
  const applicantNames = [mrzNameField(applicant.surname, applicant.given_names, 'icao'), mrzNameField(applicant.surname, applicant.given_names, 'unaccented')];
  if (!applicantNames.includes(passportName)) {
    flags.push(mismatch('name_mismatch', 'name', `${passport.surname}, ${passport.given_names}`, `${applicant.surname}, ${applicant.given_names}`));
  }
  if (passport.date_of_birth !== applicant.date_of_birth) {
    flags.push(mismatch('date_of_birth_mismatch', 'date of birth', passport.date_of_birth, applicant.date_of_birth));
  }
  if (passport.nationality !== undefined && passport.nationality !== applicant.nationality) {
    flags.push(mismatch('nationality_mismatch', 'nationality', passport.nationality, applicant.nationality));
  }
  if (applicant.passport_number !== null && foldedNumber(passport.document_number) !== foldedNumber(applicant.passport_number)) {
    flags.push(mismatch('passport_number_mismatch', 'passport number', passport.document_number, applicant.passport_number));
  }
  if (applicant.passport_expiry !== null && passport.expiry_date !== applicant.passport_expiry) {
    flags.push(mismatch('passport_expiry_mismatch', 'expiry date', passport.expiry_date, applicant.passport_expiry));
  }
  return flags;
}

function mismatch(code: string, field: string, inPassport: string, inProfile: string): RedFlag {
  return { code, message: `the ${field} in the passport (${inPassport}) differs from the applicant's (${inProfile})` };
}

function foldedNumber(number: string): string {
  return number.toUpperCase().replace(/[\s-]+/g, '');
}
