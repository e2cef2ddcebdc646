/**
 * The upload shape of `documents upload`: each part from its flag, else the profile's setting, else
 * the sandbox's (openapi.yaml). The vocabulary is the kit's `--fixtures` document (api/upload-shape.ts).
 */
import {
  headerProblem,
  PLACEHOLDER,
  SANDBOX_UPLOAD_SHAPE,
  UPLOAD_ENCODINGS,
  UPLOAD_PLACEHOLDERS,
  type UploadEncoding,
  type UploadShape,
} from '../api/upload-shape.js';
import { ConfigError, SvcError } from '../core/errors.js';
import type { Profile } from './config-file.js';

/** What the flags of `documents upload` ask for; undefined: not given. */
export interface UploadShapeFlags {
  encoding?: string | undefined;
  fileField?: string | undefined;
  typeField?: string | undefined;
  applicantField?: string | undefined;
  /** `--field name=value`, in their order. */
  fields?: string[] | undefined;
  /** `--query name=value`, in their order. */
  query?: string[] | undefined;
  /** `--header name=value`, in their order. */
  headers?: string[] | undefined;
}

const DEFAULT_NAMES = { fileField: 'file', typeField: 'type', applicantField: 'applicant_id' };

/** The parts of a shape given as name=value: each with its flag, its profile setting (a JSON object of strings) and examples. */
const PAIRS = {
  field: {
    flag: '--field',
    setting: 'upload_fields',
    what: 'the field',
    flagExample: '--field channel=ops, or --field kind={{type}}',
    saved: '{"channel": "ops"}',
  },
  query: {
    flag: '--query',
    setting: 'upload_query',
    what: 'the query parameter',
    flagExample: '--query type=passport, or --query applicant_id={{applicant_id}}',
    saved: '{"type": "{{type}}", "applicant_id": "{{applicant_id}}"}',
  },
  header: { flag: '--header', setting: 'upload_headers', what: 'the header', flagExample: '--header x-document-kind={{type}}', saved: '{"x-channel": "ops"}' },
} as const;
type PairKind = keyof typeof PAIRS;

/** A fault in a part of the shape: a usage error for a flag, a configuration error for a profile's setting. */
function fault(source: string, code: string, message: string, hint: string): SvcError {
  return source.startsWith('--') ? new SvcError('usage', code, message, hint) : new ConfigError(code, message, hint);
}

/** One name=value of `kind`, its placeholders known and, for a header, its name one svc may send. */
function checkedPair(kind: PairKind, name: string, value: string, source: string): [string, string] {
  const { what } = PAIRS[kind];
  for (const match of value.matchAll(PLACEHOLDER)) {
    if (!(UPLOAD_PLACEHOLDERS as readonly string[]).includes(match[1]!)) {
      throw fault(
        source,
        'unknown_placeholder',
        `${what} ${name} from ${source} holds {{${match[1]}}}, no placeholder svc knows`,
        `the placeholders are ${UPLOAD_PLACEHOLDERS.map((placeholder) => `{{${placeholder}}}`).join(', ')}`,
      );
    }
  }
  const problem = kind === 'header' ? headerProblem(name) : undefined;
  if (problem) throw fault(source, 'invalid_header', `${what} ${name} from ${source} ${problem}`, 'give the header the service takes, or leave it out');
  // Header names are case-insensitive: one given twice in two cases is one header.
  return [kind === 'header' ? name.toLowerCase() : name, value];
}

/** One `--field`, `--query` or `--header` name=value. */
function parsePairFlag(kind: PairKind, text: string): [string, string] {
  const { flag, flagExample } = PAIRS[kind];
  const at = text.indexOf('=');
  if (at <= 0) throw new SvcError('usage', `invalid_${kind}`, `${flag} ${text} is not name=value`, `for example ${flagExample}`);
  return checkedPair(kind, text.slice(0, at), text.slice(at + 1), flag);
}

/** A profile's `upload_fields`, `upload_query` or `upload_headers`: a JSON object of strings. */
export function parsePairsSetting(kind: PairKind, text: string, source: string): Record<string, string> {
  const { setting, what, saved } = PAIRS[kind];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.values(value).every((entry) => typeof entry === 'string')) {
    throw new ConfigError(`invalid_${setting}`, `${setting} from ${source} is not a JSON object of strings`, `for example '${saved}'`);
  }
  const pairs = Object.entries(value as Record<string, string>).map(([name, entry]) => {
    if (name === '')
      throw new ConfigError(`invalid_${setting}`, `${setting} from ${source} has ${what.replace('the ', 'a ')} without a name`, 'give each a name');
    return checkedPair(kind, name, entry, source);
  });
  return Object.fromEntries(pairs);
}

/** The profile's `upload_encoding`, or a flag's. */
export function parseEncoding(text: string, source: string): UploadEncoding {
  if ((UPLOAD_ENCODINGS as readonly string[]).includes(text)) return text as UploadEncoding;
  throw fault(source, 'invalid_upload_encoding', `${text} from ${source} is no upload encoding`, `use one of ${UPLOAD_ENCODINGS.join(', ')}`);
}

/** A field name of the profile (`upload_file_field`, …) or of a flag. */
export function parseFieldName(text: string, source: string): string {
  if (text.trim() === '')
    throw fault(source, 'invalid_field_name', `the field name from ${source} is empty`, 'give the name the service expects, like upload or kind');
  return text;
}

/** A value of the shape and where it came from (a flag, a profile's setting, the default). */
interface Sourced {
  value: string;
  source: string;
}

/** A setting of the profile, with where it came from; undefined where the profile has none. */
type SavedSetting = (setting: keyof Profile) => Sourced | undefined;

function savedSettings(profile: Profile, profileName: string): SavedSetting {
  return (setting) => {
    const saved = profile[setting];
    return saved === undefined ? undefined : { value: saved, source: `${setting} of profile "${profileName}"` };
  };
}

/** A flag's value, else the profile's setting. */
function flagOrSaved(flag: string | undefined, flagName: string, saved: SavedSetting, setting: keyof Profile): Sourced | undefined {
  return flag !== undefined ? { value: flag, source: flagName } : saved(setting);
}

/** The names of the file part, the kind field and the applicant field: each from its flag, else the profile, else the sandbox's. */
function fieldNames(flags: UploadShapeFlags, saved: SavedSetting): Record<keyof typeof DEFAULT_NAMES, { name: string; source: string }> {
  const named = (part: keyof typeof DEFAULT_NAMES, flag: string | undefined, flagName: string, setting: keyof Profile) => {
    const picked = flagOrSaved(flag, flagName, saved, setting);
    return picked ? { name: parseFieldName(picked.value, picked.source), source: picked.source } : { name: DEFAULT_NAMES[part], source: 'the default' };
  };
  return {
    fileField: named('fileField', flags.fileField, '--file-field', 'upload_file_field'),
    typeField: named('typeField', flags.typeField, '--type-field', 'upload_type_field'),
    applicantField: named('applicantField', flags.applicantField, '--applicant-field', 'upload_applicant_field'),
  };
}

/** The profile's name=value of `kind`, then the flags' (a flag wins for a name both give), each with its source. */
function givenPairs(kind: PairKind, given: string[] | undefined, saved: SavedSetting): Record<string, Sourced> {
  const found: Record<string, Sourced> = {};
  const setting = saved(PAIRS[kind].setting);
  if (setting !== undefined) {
    for (const [name, value] of Object.entries(parsePairsSetting(kind, setting.value, setting.source))) found[name] = { value, source: setting.source };
  }
  for (const text of given ?? []) {
    const [name, value] = parsePairFlag(kind, text);
    found[name] = { value, source: PAIRS[kind].flag };
  }
  return found;
}

const values = (found: Record<string, Sourced>) => Object.fromEntries(Object.entries(found).map(([name, pair]) => [name, pair.value]));

/** Refuses a header svc sets itself in this encoding. */
function refuseHeadersSvcSets(headers: Record<string, Sourced>, encoding: UploadEncoding): void {
  const refused = Object.entries(headers).find(([name]) => headerProblem(name, encoding));
  if (refused) {
    const [name, header] = refused;
    throw fault(header.source, 'invalid_header', `the header ${name} (${header.source}) ${headerProblem(name, encoding)}`, 'leave it out: svc sets it');
  }
}

/** A raw upload sends the file as the body and has no fields: a field name a flag gives, or an extra field, is refused rather than dropped. */
function refuseFieldsOfRawUpload(names: ReadonlyArray<{ source: string }>, extra: Record<string, Sourced>): void {
  const named = names.find((part) => part.source.startsWith('--'));
  if (named) {
    throw fault(
      named.source,
      'fields_with_raw_upload',
      `${named.source} names a field, and a raw upload has none: it sends the file as the body`,
      'leave it out, send the value in the query string (--query) or a header (--header), or use --encoding multipart or json',
    );
  }
  const [name, field] = Object.entries(extra)[0] ?? [];
  if (name !== undefined) {
    throw fault(
      field!.source,
      'fields_with_raw_upload',
      `the field ${name} (${field!.source}) cannot be sent: a raw upload sends the file as the body, and has no fields`,
      'send it in the query string (--query) or a header (--header), or use --encoding multipart or json to send fields',
    );
  }
}

/** The kind, applicant and file fields each need a name of their own, which no extra field takes. */
function refuseNameClashes(named: ReadonlyArray<{ name: string; source: string; what: string; flag: string }>, extra: Record<string, Sourced>): void {
  for (const [index, part] of named.entries()) {
    const clash = named.slice(0, index).find((other) => other.name === part.name);
    if (clash) {
      throw fault(
        [part.source, clash.source].find((source) => source.startsWith('--')) ?? part.source,
        'field_name_clash',
        `${clash.what} (${clash.source}) and ${part.what} (${part.source}) are both named ${part.name}`,
        'give each its own name',
      );
    }
    const field = extra[part.name];
    if (field) {
      throw fault(
        field.source,
        'field_name_clash',
        `the field ${part.name} (${field.source}) is ${part.what} (${part.source})`,
        `name ${part.what} with its own flag (${part.flag}), or give this field another name`,
      );
    }
  }
}

/**
 * The shape to upload in. A multipart form or a JSON body holds the kind, the applicant, the extra
 * fields and the file (as base64 in JSON); a raw upload sends the file as the body, so it refuses
 * fields rather than drop them. Any of them sends the query parameters and headers given.
 */
export function resolveUploadShape(flags: UploadShapeFlags, profile: Profile, profileName: string): UploadShape {
  const saved = savedSettings(profile, profileName);
  const encodingPick = flagOrSaved(flags.encoding, '--encoding', saved, 'upload_encoding');
  const encoding = encodingPick ? parseEncoding(encodingPick.value, encodingPick.source) : SANDBOX_UPLOAD_SHAPE.encoding;
  const { fileField, typeField, applicantField } = fieldNames(flags, saved);
  const extra = givenPairs('field', flags.fields, saved);
  const query = values(givenPairs('query', flags.query, saved));
  const headerPairs = givenPairs('header', flags.headers, saved);
  refuseHeadersSvcSets(headerPairs, encoding);
  const headers = values(headerPairs);

  if (encoding === 'raw') {
    refuseFieldsOfRawUpload([fileField, typeField, applicantField], extra);
    return { ...SANDBOX_UPLOAD_SHAPE, encoding, fields: {}, headers, query };
  }

  refuseNameClashes(
    [
      { ...typeField, what: 'the kind field', flag: '--type-field, and give the kind with --type' },
      { ...applicantField, what: 'the applicant field', flag: '--applicant-field' },
      { ...fileField, what: encoding === 'json' ? 'the field of the file' : 'the file part', flag: '--file-field' },
    ],
    extra,
  );
  const fields = {
    [typeField.name]: '{{type}}',
    [applicantField.name]: '{{applicant_id}}',
    ...Object.fromEntries(Object.entries(extra).map(([name, field]) => [name, field.value])),
  };
  if (encoding === 'json') return { ...SANDBOX_UPLOAD_SHAPE, encoding, fields: {}, body: { ...fields, [fileField.name]: '{{file_base64}}' }, headers, query };
  return { ...SANDBOX_UPLOAD_SHAPE, encoding, fields, fileField: fileField.name, headers, query };
}
