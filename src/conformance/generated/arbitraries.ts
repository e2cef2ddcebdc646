/**
 * What the generated checks send, as fast-check arbitraries built from the rules the specification
 * states: a destination of two uppercase letters, ids with their prefixes, a snake_case visa type,
 * the four string fields of a report, JSON bodies, `Authorization: Bearer <key>` with the key
 * prefixes of part 5. Where the specification says "not shown" (which fields are required, the
 * values of visa_type and purpose, an applicant's fields, an upload's shape), the fixtures' bodies
 * are the valid core, and only what is stated varies. Each value shrinks towards the fixtures'.
 */
import fc from 'fast-check';
import { KEY_PREFIXES } from '../../core/redaction.js';
import type { JsonObject } from '../../core/json-object.js';

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const ALPHANUMERIC = `${UPPER}${LOWER}0123456789`;

const letters = (alphabet: string, minLength: number, maxLength: number) => fc.string({ unit: fc.constantFrom(...alphabet), minLength, maxLength });

/** A destination code as part 2 states it: two uppercase letters (which codes an implementation serves is not shown). */
const destinationCode = letters(UPPER, 2, 2);

/** A report's body as sent: JSON text (or text that is not JSON), its media type, and what it is in words. */
export interface ReportInput {
  text: string;
  contentType: string;
  /** What makes it this input, for a finding: the fixtures' body is "the fixtures' report". */
  what: string;
  /** The stated fields it gives, for comparing the report made of it with it. */
  fields: JsonObject;
}

/** JSON text of a value with each string's characters written as `\u` escapes: the same value to any JSON parser. */
function escapedString(text: string): string {
  return `"${[...text].map((character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`;
}

/** JSON text as JSON.stringify writes it, but with every character beyond ASCII as its `\u` escape (the same value). */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

interface JsonForm {
  order: string[];
  space: string;
  escape: boolean;
  charset: string | undefined;
}

/** An object as JSON text in a form: its keys in `order`, `space` around every token, strings as escapes or not. */
function writeJson(body: JsonObject, form: JsonForm): string {
  const value = (item: unknown) => (typeof item === 'string' && form.escape ? escapedString(item) : asciiJson(item));
  const { space } = form;
  const members = form.order.map((key) => `${space}${asciiJson(key)}${space}:${space}${value(body[key])}${space}`);
  return `{${members.join(',')}}`;
}

const JSON_MEDIA_TYPE = 'application/json';

function describeForm(keys: string[], form: JsonForm, destination: string | undefined, core: JsonObject): string {
  const parts: string[] = [];
  if (destination !== undefined && destination !== core.destination) parts.push(`destination ${JSON.stringify(destination)}`);
  if (form.order.join() !== keys.join()) parts.push(`its fields in the order ${form.order.join(', ')}`);
  if (form.space !== '') parts.push(`${JSON.stringify(form.space)} around every token`);
  if (form.escape) parts.push('its strings written as \\u escapes');
  if (form.charset) parts.push(`Content-Type ${JSON_MEDIA_TYPE}; charset=${form.charset}`);
  return parts.length > 0 ? `the fixtures' report with ${parts.join(', ')}` : "the fixtures' report";
}

/**
 * Valid report bodies: the fixtures' report for the applicant (`core`), with another destination of
 * two uppercase letters where it has one, written as other JSON text: its keys in another order,
 * whitespace between the tokens, its strings as `\u` escapes, a charset parameter. Shrinks towards
 * the fixtures' report as JSON.stringify writes it.
 */
export function validReportInputs(core: JsonObject): fc.Arbitrary<ReportInput> {
  const keys = Object.keys(core);
  // Mostly another destination: which ones an implementation serves is where a fault hides.
  const destination =
    typeof core.destination === 'string'
      ? fc.oneof({ arbitrary: fc.constant(core.destination), weight: 1 }, { arbitrary: destinationCode, weight: 7 })
      : fc.constant(undefined);
  return fc
    .record({
      destination,
      order: fc.oneof(fc.constant(keys), fc.shuffledSubarray(keys, { minLength: keys.length, maxLength: keys.length })),
      space: fc.constantFrom('', ' ', '\n', '\t', '\r\n  '),
      escape: fc.boolean(),
      charset: fc.constantFrom(undefined, 'utf-8', 'UTF-8'),
    })
    .map(({ destination: code, ...form }) => {
      const fields = code === undefined ? core : { ...core, destination: code };
      return {
        text: writeJson(fields, form),
        contentType: form.charset ? `${JSON_MEDIA_TYPE}; charset=${form.charset}` : JSON_MEDIA_TYPE,
        what: describeForm(keys, form, code, core),
        fields,
      };
    });
}

/** A value that is not a string, for a field part 4 states is one. */
const notAString = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.boolean(),
  fc.array(letters(UPPER, 2, 2), { minLength: 0, maxLength: 2 }),
  fc.dictionary(letters(LOWER, 1, 6), letters(UPPER, 0, 4), { maxKeys: 2 }),
);

/** Values of a destination that are not two uppercase letters, one kind each. */
const BAD_DESTINATIONS: Record<string, fc.Arbitrary<string>> = {
  'lower-case letters': letters(LOWER, 2, 2),
  'one letter': letters(UPPER, 1, 1),
  'three letters or more': letters(UPPER, 3, 5),
  'a digit': fc.tuple(letters(UPPER, 1, 1), fc.constantFrom(...'0123456789')).map(([letter, digit]) => `${letter}${digit}`),
  'a space after the code': fc.tuple(destinationCode, fc.constantFrom(' ', '\t')).map(([code, space]) => `${code}${space}`),
  'an empty string': fc.constant(''),
};

/** Values of a visa type that are not snake_case: upper-case letters, a hyphen, a space or a dot between words, nothing at all. */
function badVisaTypes(visaType: string): Record<string, fc.Arbitrary<string>> {
  return {
    'upper-case letters': fc.constantFrom(visaType.toUpperCase(), `${visaType.charAt(0).toUpperCase()}${visaType.slice(1)}`),
    'words not joined by _': fc.tuple(fc.constantFrom('-', ' ', '.'), letters(LOWER, 1, 6)).map(([separator, word]) => `${visaType}${separator}${word}`),
    'an empty string': fc.constant(''),
  };
}

/** Values of an applicant id without the prefix app_ (or with nothing after it). */
function badApplicantIds(applicantId: string): Record<string, fc.Arbitrary<string>> {
  const suffix = applicantId.startsWith('app_') ? applicantId.slice(4) : applicantId;
  return {
    'another prefix': fc.constantFrom('APP_', 'app-', 'rep_', 'doc_', '').map((prefix) => `${prefix}${suffix}`),
    'the prefix alone': fc.constant('app_'),
  };
}

/** One kind of input that breaks a stated rule: a name, and its inputs, which shrink within the kind. */
export interface InvalidKind {
  name: string;
  inputs: fc.Arbitrary<ReportInput>;
}

function fieldKinds(core: JsonObject, name: string, values: Record<string, fc.Arbitrary<unknown>>, states: string, part: string): InvalidKind[] {
  if (typeof core[name] !== 'string') return [];
  return Object.entries(values).map(([kind, arbitrary]) => ({
    name: `${name}: ${kind}`,
    inputs: arbitrary.map((value) => ({
      text: asciiJson({ ...core, [name]: value }),
      contentType: JSON_MEDIA_TYPE,
      what: `${name} ${asciiJson(value)}, where part ${part} states ${states}`,
      fields: { ...core, [name]: value },
    })),
  }));
}

/**
 * Report bodies that break exactly one stated rule of the fixtures' report for the applicant, by
 * kind, so that every kind is tried: a destination that is not two uppercase letters, an
 * applicant_id without app_, a visa_type that is not snake_case, a stated field whose value is not a
 * string (of the fields the fixtures' report gives: which are required is not shown), a body that is
 * JSON but not an object, a body that is not JSON at all.
 */
export function invalidReportKinds(core: JsonObject): InvalidKind[] {
  const string = { 'not a string': notAString };
  const applicantId = typeof core.applicant_id === 'string' ? core.applicant_id : '';
  const visaType = typeof core.visa_type === 'string' ? core.visa_type : '';
  const kinds = [
    ...fieldKinds(core, 'destination', { ...BAD_DESTINATIONS, ...string }, 'two uppercase letters', '2'),
    ...fieldKinds(core, 'applicant_id', { ...badApplicantIds(applicantId), ...string }, 'an identifier with the prefix app_', '2'),
    ...fieldKinds(core, 'visa_type', { ...badVisaTypes(visaType), ...string }, 'a snake_case name', '2'),
    ...fieldKinds(core, 'purpose', string, 'a string', '4'),
  ];
  const coreText = asciiJson(core);
  kinds.push(
    {
      name: 'a body that is JSON but no object',
      inputs: fc.oneof(fc.constant(Object.values(core)), fc.constant(null), fc.constant(coreText), fc.integer({ min: 0, max: 99 })).map((value) => ({
        text: asciiJson(value),
        contentType: JSON_MEDIA_TYPE,
        what: `a body that is JSON but not an object (${asciiJson(value).slice(0, 40)}), where part 4 states a JSON object`,
        fields: {},
      })),
    },
    {
      name: 'a body that is not JSON',
      inputs: fc.integer({ min: 1, max: coreText.length - 1 }).map((length) => ({
        text: coreText.slice(0, length),
        contentType: JSON_MEDIA_TYPE,
        what: `a body that is not JSON (the fixtures' report cut after ${length} characters), where part 4 states JSON`,
        fields: {},
      })),
    },
  );
  return kinds;
}

/** An Authorization header that is no `Bearer <key>`, and how a replay shows it (the key as its variable). */
export interface MalformedHeader {
  header: string;
  shown: string;
}

const token = (minLength: number, maxLength: number) => fc.string({ unit: fc.constantFrom(...ALPHANUMERIC), minLength, maxLength });

/**
 * Authorization headers part 7 calls malformed (401 unauthorized): another scheme, the key without
 * one, `Bearer` without a key or with two, the scheme and the key run together. The scheme's case
 * is never what makes one (RFC 9110 takes `bearer` as `Bearer`).
 */
export function malformedHeaders(key: string, variable: string): fc.Arbitrary<MalformedHeader> {
  const shownKey = `$${variable}`;
  const pair = (header: string, shown: string): MalformedHeader => ({ header, shown });
  return fc.oneof(
    fc.tuple(token(1, 8), token(1, 8)).map(([user, password]) => {
      const credentials = Buffer.from(`${user}:${password}`).toString('base64');
      return pair(`Basic ${credentials}`, `Basic ${credentials}`);
    }),
    fc.constant(pair(key, shownKey)),
    fc.constant(pair('Bearer', 'Bearer')),
    fc.constant(pair(`Bearer ${key} ${key}`, `Bearer ${shownKey} ${shownKey}`)),
    fc.constantFrom('Token', 'Key', 'Digest', 'ApiKey', 'HMAC').map((scheme) => pair(`${scheme} ${key}`, `${scheme} ${shownKey}`)),
    fc.constantFrom(':', '=', '_').map((separator) => pair(`Bearer${separator}${key}`, `Bearer${separator}${shownKey}`)),
  );
}

/** A key of a stated prefix (part 5) that no implementation made: 401 invalid_key. */
export const unknownKeys = fc
  .tuple(fc.constantFrom(...Object.values(KEY_PREFIXES)), token(24, 40))
  .map(([prefix, rest]) => ({ header: `Bearer ${prefix}${rest}`, shown: `Bearer <a ${prefix} key that does not exist>` }));

/** A request of the robustness check: method, path, and a body with its media type, all of printable ASCII. */
export interface FuzzRequest {
  method: string;
  path: string;
  contentType?: string | undefined;
  body?: string | undefined;
  /** Whether an answer of success may have made a report (to be deleted). */
  mayCreate: boolean;
}

const printableText = fc.string({ unit: 'grapheme-ascii', minLength: 0, maxLength: 60 });
/** An id of any characters, percent-encoded into a path segment (but `.` and `..`, which a URL resolves away). */
const anyId = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 40 })
  .filter((id) => !/^\.+$/.test(id))
  .map(encodeURIComponent);
const mediaTypes = fc.constantFrom<string | undefined>(JSON_MEDIA_TYPE, 'text/plain', 'application/x-www-form-urlencoded', 'application/xml', undefined);
const QUERY_NAMES = ['limit', 'starting_after', 'cursor', 'page', 'per_page', 'status', 'applicant_id', 'after', 'page[size]'];
const queryValue = fc.oneof(fc.integer({ min: -5, max: 10_000 }).map(String), printableText, token(1, 30));

/**
 * Requests of every stated operation with inputs from anywhere: the fixtures' report with fields of
 * any JSON value, bodies that are not JSON objects or not JSON, any media type, ids of any
 * characters, query parameters the list does not show. None can revoke a key or delete a report
 * that is not the kit's (a report id it deletes is `rep_svckit…` or not `rep_` at all), and none
 * makes an applicant or a document (an applicant's body is JSON that is no object, or no JSON).
 */
export function fuzzRequests(core: JsonObject): fc.Arbitrary<FuzzRequest> {
  const keys = Object.keys(core);
  const report = fc
    .dictionary(fc.oneof(fc.constantFrom(...keys), token(1, 12)), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 3 })
    .map((changes) => ({ method: 'POST', path: '/v1/reports', contentType: JSON_MEDIA_TYPE, body: asciiJson({ ...core, ...changes }), mayCreate: true }));
  const notAnObject = fc.oneof(
    fc
      .jsonValue({ maxDepth: 2 })
      .filter((value) => typeof value !== 'object' || value === null || Array.isArray(value))
      .map(asciiJson),
    printableText,
  );
  const body = (path: string, types: fc.Arbitrary<string | undefined>) =>
    fc.tuple(notAnObject, types).map(([text, contentType]) => ({ method: 'POST', path, contentType, body: text, mayCreate: path === '/v1/reports' }));
  const read = anyId.map((id) => ({ method: 'GET', path: `/v1/reports/${id}`, mayCreate: false }));
  const deletion = fc
    .oneof(
      token(8, 24).map((suffix) => `rep_svckit${suffix}`),
      anyId.filter((id) => !id.startsWith('rep_')),
    )
    .map((id) => ({ method: 'DELETE', path: `/v1/reports/${id}`, mayCreate: false }));
  const list = fc
    .dictionary(fc.oneof(fc.constantFrom(...QUERY_NAMES), token(1, 10)), queryValue, { minKeys: 1, maxKeys: 3 })
    .map((query) => ({ method: 'GET', path: `/v1/reports?${new URLSearchParams(query).toString()}`, mayCreate: false }));
  const revocation = anyId.map((id) => ({ method: 'DELETE', path: `/v1/keys/${id}`, mayCreate: false }));
  return fc.oneof(report, body('/v1/reports', mediaTypes), body('/v1/applicants', fc.constant(JSON_MEDIA_TYPE)), read, deletion, list, revocation);
}
