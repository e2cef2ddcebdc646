/**
 * The machine-readable zone (MRZ) of a passport, ICAO Doc 9303 format TD3: two lines of 44
 * characters from A-Z, 0-9 and the filler `<`.
 *
 *   line 1: P, type, issuing state (3), SURNAME<<GIVEN<NAMES padded with < (39)
 *   line 2: document number (9) + check, nationality (3), birth YYMMDD + check, sex,
 *           expiry YYMMDD + check, optional data (14) + check, composite check
 */
import type { PassportExtract } from '../api/types.js';
import { alpha2Of, alpha3Of } from './countries.js';
import { isIsoDate } from './dates.js';

export interface MrzLines {
  line1: string;
  line2: string;
}

export interface MrzCheckDigits {
  document_number: boolean;
  date_of_birth: boolean;
  expiry_date: boolean;
  optional_data: boolean;
  composite: boolean;
}

/** What an MRZ says. `nationality` is `undefined` when `nationality_code` is not a known state: such an MRZ is invalid. */
export type MrzReading = Omit<PassportExtract, 'nationality'> & {
  nationality: string | undefined;
  /** The three-letter code as printed, fillers removed (`D` for Germany). */
  nationality_code: string;
  check_digits: MrzCheckDigits;
};

type Sex = PassportExtract['sex'];

export interface MrzFields {
  document_number: string;
  /** ISO 3166-1 alpha-2; the issuing state defaults to it. */
  nationality: string;
  issuing_state?: string;
  surname: string;
  given_names: string;
  /** YYYY-MM-DD */
  date_of_birth: string;
  /** YYYY-MM-DD */
  expiry_date: string;
  sex: Sex;
  optional_data?: string;
}

const LINE_LENGTH = 44;
const NAME_FIELD_LENGTH = 39;
const LINE1 = 'P[A-Z<][A-Z<]{3}[A-Z<]{39}';
const LINE2 = '[A-Z0-9<]{9}[0-9][A-Z<]{3}[0-9]{6}[0-9][MFX<][0-9]{6}[0-9][A-Z0-9<]{14}[0-9<][0-9]';
const MRZ_IN_TEXT = new RegExp(`(${LINE1})(${LINE2})`, 'g');
const MRZ_LINE1 = new RegExp(`^${LINE1}$`);
const MRZ_LINE2 = new RegExp(`^${LINE2}$`);
const CHECK_WEIGHTS = [7, 3, 1];

/**
 * ICAO codes that are not ISO 3166-1 alpha-3, mapped to the alpha-2 code used for comparison with an
 * applicant. `ZZ` is a user-assigned ISO code, so the specimen state Utopia never collides with a real one.
 */
const ICAO_SPECIAL_STATES: ReadonlyMap<string, string> = new Map([
  ['D', 'DE'],
  ['GBD', 'GB'], // British Overseas Territories citizen
  ['GBN', 'GB'], // British National (Overseas)
  ['GBO', 'GB'], // British Overseas citizen
  ['GBP', 'GB'], // British protected person
  ['GBS', 'GB'], // British subject
  ['UTO', 'ZZ'], // Utopia, the state of ICAO's specimen documents
]);
const ICAO_CODE_FOR: ReadonlyMap<string, string> = new Map([
  ['DE', 'D'],
  ['ZZ', 'UTO'],
]);

/** Transliterations of ICAO Doc 9303 part 3 that differ from dropping the accent. */
const ICAO_TRANSLITERATIONS: ReadonlyMap<string, string> = new Map([
  ['Ä', 'AE'],
  ['Å', 'AA'],
  ['Æ', 'AE'],
  ['Ö', 'OE'],
  ['Ø', 'OE'],
  ['Ü', 'UE'],
  ['Þ', 'TH'],
  ['Œ', 'OE'],
]);

/**
 * Finds a TD3 MRZ in free text such as a PDF's extracted text: whitespace (spaces inserted by OCR,
 * line breaks of any kind) is ignored and lower case is accepted, so the two lines may also arrive
 * joined or split differently. Lines whose dates are not calendar dates are not an MRZ.
 */
export function findMrz(text: string): MrzLines | undefined {
  const compact = text.toUpperCase().replace(/\s+/g, '');
  for (const match of compact.matchAll(MRZ_IN_TEXT)) {
    const [, line1, line2] = match;
    if (line1 !== undefined && line2 !== undefined && datesAreValid(line2)) return { line1, line2 };
  }
  return undefined;
}

/** The ICAO check digit: characters valued 0-9, A-Z = 10-35, `<` = 0, weighted 7, 3, 1 repeating, sum modulo 10. */
export function checkDigit(value: string): number {
  let sum = 0;
  for (let index = 0; index < value.length; index++) {
    sum += characterValue(value.charAt(index)) * (CHECK_WEIGHTS[index % 3] ?? 0);
  }
  return sum % 10;
}

/**
 * Reads the fields of MRZ lines as returned by `findMrz` or `buildMrz`. `today` (YYYY-MM-DD) decides the
 * century of the birth date: a birth date that would lie in the future is in the 1900s. Expiry dates are
 * always in the 2000s. Throws on lines that are not a TD3 MRZ.
 */
export function parseMrz(lines: MrzLines, today: string): MrzReading {
  const { line1, line2 } = lines;
  if (!MRZ_LINE1.test(line1) || !MRZ_LINE2.test(line2) || !datesAreValid(line2)) {
    throw new Error('not a TD3 machine-readable zone');
  }
  const { surname, given_names } = namesOf(line1.slice(5));
  const nationalityCode = withoutFillers(line2.slice(10, 13));
  const birth = isoDate(line2.slice(13, 19), '20');
  const check_digits: MrzCheckDigits = {
    document_number: checks(line2.slice(0, 9), line2.charAt(9)),
    date_of_birth: checks(line2.slice(13, 19), line2.charAt(19)),
    expiry_date: checks(line2.slice(21, 27), line2.charAt(27)),
    optional_data: checksOptionalData(line2.slice(28, 42), line2.charAt(42)),
    composite: checks(line2.slice(0, 10) + line2.slice(13, 20) + line2.slice(21, 43), line2.charAt(43)),
  };
  return {
    document_number: withoutFillers(line2.slice(0, 9)),
    nationality: stateOf(nationalityCode),
    nationality_code: nationalityCode,
    surname,
    given_names,
    date_of_birth: birth > today ? isoDate(line2.slice(13, 19), '19') : birth,
    expiry_date: isoDate(line2.slice(21, 27), '20'),
    sex: sexOf(line2.charAt(20)),
    check_digits_valid: Object.values(check_digits).every(Boolean),
    check_digits,
  };
}

/** Composes valid MRZ lines, check digits included: the sandbox's sample passports are made with it. */
export function buildMrz(fields: MrzFields): MrzLines {
  const documentNumber = fields.document_number.toUpperCase();
  if (!/^[A-Z0-9]{1,9}$/.test(documentNumber)) throw new Error(`document number must be 1-9 letters or digits: ${fields.document_number}`);
  const optionalData = (fields.optional_data ?? '').toUpperCase();
  if (!/^[A-Z0-9<]{0,14}$/.test(optionalData)) throw new Error(`optional data must be at most 14 letters, digits or <: ${optionalData}`);
  const birth = mrzDate(fields.date_of_birth);
  const expiry = mrzDate(fields.expiry_date);

  const line1 = `P<${icaoStateCode(fields.issuing_state ?? fields.nationality)}${mrzNameField(fields.surname, fields.given_names)}`;
  const numberField = documentNumber.padEnd(9, '<');
  const optionalField = optionalData.padEnd(14, '<');
  const optionalCheck = /^<*$/.test(optionalField) ? '<' : String(checkDigit(optionalField));
  const line2Start = `${numberField}${checkDigit(numberField)}${icaoStateCode(fields.nationality)}`;
  const line2Middle = `${birth}${checkDigit(birth)}${fields.sex === 'X' ? '<' : fields.sex}${expiry}${checkDigit(expiry)}${optionalField}${optionalCheck}`;
  const composite = checkDigit(
    `${numberField}${checkDigit(numberField)}${birth}${checkDigit(birth)}${expiry}${checkDigit(expiry)}${optionalField}${optionalCheck}`,
  );
  return { line1: line1.padEnd(LINE_LENGTH, '<'), line2: `${line2Start}${line2Middle}${composite}` };
}

/**
 * A name as the MRZ writes it, without trailing fillers: `SURNAME<<GIVEN<NAMES`, cut at 39 characters.
 * Spaces, hyphens and apostrophes become `<` or vanish as in ICAO Doc 9303; letters are transliterated the
 * ICAO way (`Ü` → `UE`) or, with `style: 'unaccented'`, by dropping the accent (`Ü` → `U`), which some
 * states do.
 */
export function mrzNameField(surname: string, givenNames: string, style: 'icao' | 'unaccented' = 'icao'): string {
  const field = `${mrzNamePart(surname, style)}<<${mrzNamePart(givenNames, style)}`;
  return field.slice(0, NAME_FIELD_LENGTH).replace(/<+$/, '');
}

function mrzNamePart(name: string, style: 'icao' | 'unaccented'): string {
  const upper = name.toUpperCase();
  const transliterated = style === 'icao' ? [...upper].map((letter) => ICAO_TRANSLITERATIONS.get(letter) ?? letter).join('') : upper;
  return transliterated
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/['’]/g, '')
    .replace(/[^A-Z]+/g, '<')
    .replace(/^<+|<+$/g, '');
}

function namesOf(nameField: string): { surname: string; given_names: string } {
  const separator = nameField.indexOf('<<');
  const surname = separator === -1 ? nameField : nameField.slice(0, separator);
  const givenNames = separator === -1 ? '' : nameField.slice(separator + 2);
  return { surname: withoutFillers(surname), given_names: withoutFillers(givenNames) };
}

/** `<` as a space, trailing fillers dropped. */
function withoutFillers(field: string): string {
  return field.replace(/<+/g, ' ').trim();
}

function characterValue(character: string): number {
  if (character >= '0' && character <= '9') return character.charCodeAt(0) - 48;
  if (character >= 'A' && character <= 'Z') return character.charCodeAt(0) - 55;
  if (character === '<') return 0;
  throw new Error(`not an MRZ character: ${JSON.stringify(character)}`);
}

function checks(field: string, digit: string): boolean {
  return String(checkDigit(field)) === digit;
}

/** An empty optional data field may carry `<` instead of a check digit. */
function checksOptionalData(field: string, digit: string): boolean {
  return (digit === '<' && /^<*$/.test(field)) || checks(field, digit);
}

function stateOf(code: string): string | undefined {
  return ICAO_SPECIAL_STATES.get(code) ?? alpha2Of(code);
}

function icaoStateCode(alpha2: string): string {
  const code = ICAO_CODE_FOR.get(alpha2) ?? alpha3Of(alpha2);
  if (code === undefined) throw new Error(`not an ISO 3166-1 alpha-2 country code: ${alpha2}`);
  return code.padEnd(3, '<');
}

function sexOf(character: string): Sex {
  return character === 'M' || character === 'F' ? character : 'X';
}

function isoDate(yymmdd: string, century: '19' | '20'): string {
  return `${century}${yymmdd.slice(0, 2)}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
}

function mrzDate(date: string): string {
  if (!isIsoDate(date)) throw new Error(`not an ISO date (YYYY-MM-DD): ${date}`);
  return date.slice(2, 4) + date.slice(5, 7) + date.slice(8, 10);
}

/** Checked as 20xx dates: their leap years are those of 19xx except 1900, a year no passport holder was born in. */
function datesAreValid(line2: string): boolean {
  return isIsoDate(isoDate(line2.slice(13, 19), '20')) && isIsoDate(isoDate(line2.slice(21, 27), '20'));
}
