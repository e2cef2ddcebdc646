import { describe, expect, it } from 'vitest';
import { buildMrz, checkDigit, findMrz, mrzNameField, parseMrz, type MrzFields, type MrzLines } from '../../src/sandbox/mrz.js';
import { passportFields } from './fixtures.js';

// The specimen passport of ICAO Doc 9303 part 4 (Utopia).
const SPECIMEN: MrzLines = {
  line1: 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<',
  line2: 'L898902C36UTO7408122F1204159ZE184226B<<<<<10',
};
const SPECIMEN_FIELDS: MrzFields = {
  document_number: 'L898902C3',
  nationality: 'ZZ',
  surname: 'ERIKSSON',
  given_names: 'ANNA MARIA',
  date_of_birth: '1974-08-12',
  expiry_date: '2012-04-15',
  sex: 'F',
  optional_data: 'ZE184226B',
};
const TODAY = '2026-03-01';
const ALL_VALID = { document_number: true, date_of_birth: true, expiry_date: true, optional_data: true, composite: true };

function withCharacter(line: string, index: number, character: string): string {
  return line.slice(0, index) + character + line.slice(index + 1);
}

function otherDigit(digit: string): string {
  return String((Number(digit) + 1) % 10);
}

describe('checkDigit', () => {
  it.each([
    ['L898902C3', 6],
    ['740812', 2],
    ['120415', 9],
    ['ZE184226B<<<<<', 1],
    ['L898902C36' + '7408122' + '1204159ZE184226B<<<<<1', 0],
    ['<<<<<<<<<', 0],
    ['D23145890', 7],
  ])('of %s is %i', (value, digit) => {
    expect(checkDigit(value)).toBe(digit);
  });

  it('values letters 10-35 with weights 7, 3, 1: A = 10 → 70 → 0, B = 11 → 77 → 7, AB → 70 + 33 = 103 → 3', () => {
    expect(checkDigit('A')).toBe(0);
    expect(checkDigit('B')).toBe(7);
    expect(checkDigit('AB')).toBe(3);
    expect(checkDigit('Z')).toBe((35 * 7) % 10);
  });

  it('refuses characters outside the MRZ alphabet', () => {
    expect(() => checkDigit('ab')).toThrow(/not an MRZ character/);
  });
});

describe('findMrz', () => {
  it('finds the two lines of a clean MRZ', () => {
    expect(findMrz(`${SPECIMEN.line1}\n${SPECIMEN.line2}\n`)).toEqual(SPECIMEN);
  });

  it('finds the MRZ among surrounding text', () => {
    const text = `PASSPORT / PASSEPORT\nUtopia\nSurname: Eriksson\nGiven names: Anna Maria\n\n${SPECIMEN.line1}\n${SPECIMEN.line2}\nPage 1 of 1`;
    expect(findMrz(text)).toEqual(SPECIMEN);
  });

  it('tolerates spaces inside the lines, lower case and CRLF line ends, as from OCR or PDF extraction', () => {
    const noisy = 'p<uto ERIKSSON<<ANNA<MARIA <<<<<<<<<<<<<<<<<<<\r\nL898902C3 6UTO 7408122F 1204159 ZE184226B<<<<<1 0\r\n';
    expect(findMrz(noisy)).toEqual(SPECIMEN);
  });

  it('finds the lines when an extractor joined them onto one line', () => {
    expect(findMrz(`MRZ: ${SPECIMEN.line1} ${SPECIMEN.line2}`)).toEqual(SPECIMEN);
  });

  it('finds nothing in text without an MRZ', () => {
    expect(findMrz('Bank statement\nBalance: 12,000 EUR\n')).toBeUndefined();
    expect(findMrz('')).toBeUndefined();
  });

  it('finds nothing when a line is missing or a character short', () => {
    expect(findMrz(SPECIMEN.line1)).toBeUndefined();
    expect(findMrz(`${SPECIMEN.line1}\n${SPECIMEN.line2.slice(1)}`)).toBeUndefined();
  });

  it('finds nothing when line 1 does not start with P (not a passport)', () => {
    expect(findMrz(`${withCharacter(SPECIMEN.line1, 0, 'V')}\n${SPECIMEN.line2}`)).toBeUndefined();
  });

  it('does not take lines whose dates are not calendar dates for an MRZ', () => {
    expect(findMrz(`${SPECIMEN.line1}\n${SPECIMEN.line2.replace('740812', '741312')}`)).toBeUndefined(); // month 13
    expect(findMrz(`${SPECIMEN.line1}\n${SPECIMEN.line2.replace('120415', '120231')}`)).toBeUndefined(); // 31 February
  });
});

describe('parseMrz', () => {
  it('reads the fields of the ICAO specimen', () => {
    expect(parseMrz(SPECIMEN, TODAY)).toEqual({
      document_number: 'L898902C3',
      nationality: 'ZZ',
      nationality_code: 'UTO',
      surname: 'ERIKSSON',
      given_names: 'ANNA MARIA',
      date_of_birth: '1974-08-12',
      expiry_date: '2012-04-15',
      sex: 'F',
      check_digits_valid: true,
      check_digits: ALL_VALID,
    });
  });

  it.each([
    // position of the broken digit, and the checks that fail: the composite covers the other check digits
    [9, { document_number: false, composite: false }],
    [19, { date_of_birth: false, composite: false }],
    [27, { expiry_date: false, composite: false }],
    [42, { optional_data: false, composite: false }],
    [43, { composite: false }],
  ])('notices the check digit at position %i broken', (position, failing) => {
    const line2 = withCharacter(SPECIMEN.line2, position, otherDigit(SPECIMEN.line2.charAt(position)));
    const reading = parseMrz({ line1: SPECIMEN.line1, line2 }, TODAY);
    expect(reading.check_digits).toEqual({ ...ALL_VALID, ...failing });
    expect(reading.check_digits_valid).toBe(false);
  });

  it('notices a changed field whose check digit was left as it was', () => {
    const line2 = SPECIMEN.line2.replace('740812', '740813');
    const reading = parseMrz({ line1: SPECIMEN.line1, line2 }, TODAY);
    expect(reading.check_digits).toEqual({ ...ALL_VALID, date_of_birth: false, composite: false });
    expect(reading.date_of_birth).toBe('1974-08-13');
  });

  it('puts a birth date that would lie in the future in the 1900s, and every expiry date in the 2000s', () => {
    const lines = buildMrz({ ...SPECIMEN_FIELDS, date_of_birth: '2015-06-30', expiry_date: '2030-01-01' });
    expect(parseMrz(lines, TODAY).date_of_birth).toBe('2015-06-30');
    expect(parseMrz(lines, '2015-06-30').date_of_birth).toBe('2015-06-30');
    expect(parseMrz(lines, '2015-06-29').date_of_birth).toBe('1915-06-30');
    expect(parseMrz(lines, TODAY).expiry_date).toBe('2030-01-01');
    expect(parseMrz(SPECIMEN, TODAY).expiry_date).toBe('2012-04-15');
  });

  it.each([
    ['D<<', 'DE'],
    ['DEU', 'DE'],
    ['GBR', 'GB'],
    ['GBD', 'GB'],
    ['GBN', 'GB'],
    ['USA', 'US'],
    ['UTO', 'ZZ'],
  ])('converts the nationality %s to %s', (code, alpha2) => {
    const line2 = SPECIMEN.line2.slice(0, 10) + code + SPECIMEN.line2.slice(13);
    expect(parseMrz({ line1: SPECIMEN.line1, line2 }, TODAY).nationality).toBe(alpha2);
  });

  it.each(['XXA', 'XXX', 'ZZZ'])('leaves the unknown nationality %s undefined, keeping the code', (code) => {
    const line2 = SPECIMEN.line2.slice(0, 10) + code + SPECIMEN.line2.slice(13);
    const reading = parseMrz({ line1: SPECIMEN.line1, line2 }, TODAY);
    expect(reading.nationality).toBeUndefined();
    expect(reading.nationality_code).toBe(code);
  });

  it('reads < as sex X, and M as M', () => {
    expect(parseMrz({ line1: SPECIMEN.line1, line2: withCharacter(SPECIMEN.line2, 20, '<') }, TODAY).sex).toBe('X');
    expect(parseMrz({ line1: SPECIMEN.line1, line2: withCharacter(SPECIMEN.line2, 20, 'M') }, TODAY).sex).toBe('M');
  });

  it('reads a name without given names, and < inside a surname as a space', () => {
    const line1 = 'P<UTODE<LA<CRUZ'.padEnd(44, '<');
    expect(parseMrz({ line1, line2: SPECIMEN.line2 }, TODAY)).toMatchObject({ surname: 'DE LA CRUZ', given_names: '' });
  });

  it('refuses lines that are not a TD3 MRZ', () => {
    expect(() => parseMrz({ line1: SPECIMEN.line1.slice(1), line2: SPECIMEN.line2 }, TODAY)).toThrow(/not a TD3/);
    expect(() => parseMrz({ line1: SPECIMEN.line1, line2: SPECIMEN.line2.toLowerCase() }, TODAY)).toThrow(/not a TD3/);
  });
});

describe('buildMrz', () => {
  it('composes the ICAO specimen from its fields', () => {
    expect(buildMrz(SPECIMEN_FIELDS)).toEqual(SPECIMEN);
  });

  it('round-trips through parseMrz with valid check digits', () => {
    const fields = passportFields();
    const lines = buildMrz(fields);
    expect(lines.line1).toBe('P<D<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<<<<<<<<<');
    expect(lines.line1).toHaveLength(44);
    expect(lines.line2).toHaveLength(44);
    expect(findMrz(`${lines.line1}\n${lines.line2}`)).toEqual(lines);
    expect(parseMrz(lines, TODAY)).toEqual({
      document_number: 'C01X00T47',
      nationality: 'DE',
      nationality_code: 'D',
      surname: 'MUSTERMANN',
      given_names: 'ERIKA',
      date_of_birth: '1983-08-12',
      expiry_date: '2031-10-31',
      sex: 'F',
      check_digits_valid: true,
      check_digits: ALL_VALID,
    });
  });

  it('fills an empty optional data field with < and still gives a valid composite', () => {
    const lines = buildMrz({ ...SPECIMEN_FIELDS, optional_data: undefined, sex: 'X', issuing_state: 'US' });
    expect(lines.line1.slice(0, 5)).toBe('P<USA');
    expect(lines.line2.slice(20, 21)).toBe('<');
    expect(lines.line2.slice(28, 43)).toBe('<'.repeat(15));
    expect(parseMrz(lines, TODAY)).toMatchObject({ check_digits: ALL_VALID, check_digits_valid: true, sex: 'X', nationality: 'ZZ' });
  });

  it('writes names the ICAO way: upper case, hyphens and spaces as <, apostrophes dropped, umlauts transliterated', () => {
    const lines = buildMrz({ ...SPECIMEN_FIELDS, surname: "Müller-O'Brien", given_names: 'Hans Jürgen' });
    expect(lines.line1).toBe('P<UTOMUELLER<OBRIEN<<HANS<JUERGEN'.padEnd(44, '<'));
  });

  it('cuts a long name at 39 characters', () => {
    const lines = buildMrz({ ...SPECIMEN_FIELDS, surname: 'Wolfeschlegelsteinhausenbergerdorff', given_names: 'Hubert Blaine' });
    expect(lines.line1).toBe('P<UTOWOLFESCHLEGELSTEINHAUSENBERGERDORFF<<HU');
    expect(parseMrz(lines, TODAY)).toMatchObject({ surname: 'WOLFESCHLEGELSTEINHAUSENBERGERDORFF', given_names: 'HU', check_digits_valid: true });
  });

  it('refuses fields an MRZ cannot carry', () => {
    expect(() => buildMrz({ ...SPECIMEN_FIELDS, document_number: 'L898902C3X' })).toThrow(/document number/);
    expect(() => buildMrz({ ...SPECIMEN_FIELDS, document_number: 'L89-8902' })).toThrow(/document number/);
    expect(() => buildMrz({ ...SPECIMEN_FIELDS, nationality: 'XX' })).toThrow(/country code/);
    expect(() => buildMrz({ ...SPECIMEN_FIELDS, date_of_birth: '1974-02-30' })).toThrow(/ISO date/);
    expect(() => buildMrz({ ...SPECIMEN_FIELDS, optional_data: 'A'.repeat(15) })).toThrow(/optional data/);
  });
});

describe('mrzNameField', () => {
  it('transliterates the ICAO way or by dropping accents', () => {
    expect(mrzNameField('Gößmann', 'Zoë Ångström')).toBe('GOESSMANN<<ZOE<AANGSTROEM');
    expect(mrzNameField('Gößmann', 'Zoë Ångström', 'unaccented')).toBe('GOSSMANN<<ZOE<ANGSTROM');
  });

  it('folds runs of spaces and hyphens into one filler', () => {
    expect(mrzNameField('  de la  Cruz ', 'Ana - María')).toBe('DE<LA<CRUZ<<ANA<MARIA');
  });
});
