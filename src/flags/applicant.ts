import { Flags, type Interfaces } from '@oclif/core';
import { EMPLOYMENT_STATUSES, RECENT_TRAVEL_YEARS } from '../spec/enums.js';
import { countryCode, currencyCode, trimmed } from '../spec/normalise.js';
import { SvcError } from '../core/errors.js';
import { readJsonObjectFile } from '../core/json-file.js';

/** The fields of ApplicantInput as flags, shared by `applicants create` and `applicants update`. */
export const applicantFlags = {
  file: Flags.string({
    description: 'JSON file of applicant fields, as the service names them (the sandbox: given_names, …); sent as it is, flags overriding its fields',
  }),
  'given-names': Flags.string({ description: 'Given names, as in the passport' }),
  surname: Flags.string({ description: 'Surname, as in the passport' }),
  'date-of-birth': Flags.string({ description: 'Date of birth, YYYY-MM-DD' }),
  nationality: Flags.string({ description: 'Nationality, two uppercase letters (ISO 3166-1 alpha-2)' }),
  'passport-number': Flags.string({ description: 'Passport number, 5-20 uppercase letters and digits' }),
  'passport-expiry': Flags.string({ description: 'Passport expiry date, YYYY-MM-DD' }),
  occupation: Flags.string({ description: 'Occupation, free text' }),
  'employment-status': Flags.string({ description: `Employment status (the sandbox: ${EMPLOYMENT_STATUSES.join(', ')})` }),
  'monthly-income': Flags.string({ description: 'Monthly income, in --currency' }),
  savings: Flags.string({ description: 'Savings, in --currency' }),
  currency: Flags.string({ description: 'Currency of income and savings, three uppercase letters (ISO 4217)' }),
  'previous-refusals': Flags.string({ description: 'Number of earlier visa refusals' }),
  travel: Flags.string({
    description: 'An earlier trip as COUNTRY:YEAR, or COUNTRY:YEAR:overstayed; repeat the flag for each trip (replaces the travel history of --file)',
    multiple: true,
  }),
};

type ApplicantFlagValues = Interfaces.InferredFlags<typeof applicantFlags>;

// A number when the text is one; otherwise the text itself, for the service to judge.
function numeric(text: string | undefined): number | string | undefined {
  return text !== undefined && text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
}

const PROFILE_FILE = { what: 'the profile file', flag: '--file', example: '{"given_names": "Ana", "nationality": "PT"}' };

function invalid(message: string, hint: string): SvcError {
  return new SvcError('invalidInput', 'invalid_input', message, hint);
}

function parseTrip(text: string): { country: string; year: number | string; overstayed: boolean } {
  const match = /^([^:]*):([^:]*)(?::(overstayed))?$/.exec(text);
  if (!match)
    throw invalid(
      `--travel ${text}: expected COUNTRY:YEAR or COUNTRY:YEAR:overstayed (field travel_history)`,
      'write each trip as --travel DE:2023, or --travel US:2019:overstayed',
    );
  return { country: countryCode(match[1]) ?? '', year: numeric(match[2]) ?? '', overstayed: match[3] !== undefined };
}

/** The date of `now`, YYYY-MM-DD, in UTC. */
const dateOf = (now: number) => new Date(now).toISOString().slice(0, 10);

/** Refuses a --date-of-birth after today: no one, whatever the service, is born in the future. */
function assertBornBefore(dateOfBirth: string | undefined, now: number): void {
  const today = dateOf(now);
  if (dateOfBirth === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(dateOfBirth) || dateOfBirth <= today) return;
  throw new SvcError(
    'usage',
    'date_of_birth_in_future',
    `--date-of-birth ${dateOfBirth} is after today (${today}): a date of birth is in the past`,
    'give the date of birth as YYYY-MM-DD, like --date-of-birth 1990-04-12; nothing was sent',
  );
}

/**
 * Warnings for --travel trips the sandbox will not count: a year in the future, or one before the last
 * ten years (an overstay counts whenever it was). The travel history is the service's to judge (the
 * specification does not show applicant fields), so they are sent as given.
 */
export function travelWarnings(trips: string[] | undefined, now: number): string[] {
  const thisYear = Number(dateOf(now).slice(0, 4));
  const earliest = thisYear - (RECENT_TRAVEL_YEARS - 1);
  return (trips ?? []).flatMap((text) => {
    const { year, overstayed } = parseTrip(text);
    if (typeof year !== 'number') return [];
    if (year > thisYear) return [`--travel ${text}: ${year} is in the future, and the travel history is of earlier trips; sent as given`];
    if (year < earliest && !overstayed)
      return [`--travel ${text}: ${year} is not one of the last ten years (${earliest} to ${thisYear}), so the sandbox does not count the trip; sent as given`];
    return [];
  });
}

/**
 * The body of POST /v1/applicants: the fields of --file, overridden by those given as flags. The
 * fields are the service's to define (spec part 4: not shown), so nothing is checked here but a
 * --date-of-birth after today.
 */
export async function applicantInputFrom(flags: ApplicantFlagValues, now = Date.now()): Promise<Record<string, unknown>> {
  assertBornBefore(trimmed(flags['date-of-birth']), now);
  const fromFlags: Record<string, unknown> = {
    given_names: trimmed(flags['given-names']),
    surname: trimmed(flags.surname),
    date_of_birth: trimmed(flags['date-of-birth']),
    nationality: countryCode(flags.nationality),
    passport_number: trimmed(flags['passport-number']),
    passport_expiry: trimmed(flags['passport-expiry']),
    occupation: trimmed(flags.occupation),
    employment_status: trimmed(flags['employment-status']),
    monthly_income: numeric(flags['monthly-income']),
    savings: numeric(flags.savings),
    currency: currencyCode(flags.currency),
    previous_refusals: numeric(flags['previous-refusals']),
    travel_history: flags.travel?.map(parseTrip),
  };
  const fromFile =
    flags.file === undefined
      ? {}
      : await readJsonObjectFile(flags.file, PROFILE_FILE, { kind: 'invalidInput', unreadable: 'invalid_input', invalid: 'invalid_input' });
  return { ...fromFile, ...Object.fromEntries(Object.entries(fromFlags).filter(([, value]) => value !== undefined)) };
}
