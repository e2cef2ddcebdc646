/**
 * The upload shape of `documents upload`: each part from its flag, else the profile's setting, else
 * the sandbox's (openapi.yaml). The vocabulary is the kit's `--fixtures` document (api/upload-shape.ts).
 */
import { PLACEHOLDER, SANDBOX_UPLOAD_SHAPE, UPLOAD_ENCODINGS, UPLOAD_PLACEHOLDERS, type UploadEncoding, type UploadShape } from '../api/upload-shape.js';
import { ConfigError, SvcError } from '../core/errors.js';
import type { Profile } from './store.js';

/** What the flags of `documents upload` ask for; undefined: not given. */
export interface UploadShapeFlags {
  encoding?: string | undefined;
  fileField?: string | undefined;
  typeField?: string | undefined;
  applicantField?: string | undefined;
  /** `--field name=value`, in their order. */
  fields?: string[] | undefined;
}

const DEFAULT_NAMES = { fileField: 'file', typeField: 'type', applicantField: 'applicant_id' };

/** A fault in a part of the shape: a usage error for a flag, a configuration error for a profile's setting. */
function fault(source: string, code: string, message: string, hint: string): SvcError {
  return source.startsWith('--') ? new SvcError('usage', code, message, hint) : new ConfigError(code, message, hint);
}

function checkedValue(name: string, value: string, source: string): string {
  for (const match of value.matchAll(PLACEHOLDER)) {
    if (!(UPLOAD_PLACEHOLDERS as readonly string[]).includes(match[1]!)) {
      throw fault(
        source,
        'unknown_placeholder',
        `the field ${name} from ${source} holds {{${match[1]}}}, no placeholder svc knows`,
        `the placeholders are ${UPLOAD_PLACEHOLDERS.map((placeholder) => `{{${placeholder}}}`).join(', ')}`,
      );
    }
  }
  return value;
}

/** One `--field name=value`. */
function parseFieldFlag(text: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) throw new SvcError('usage', 'invalid_field', `--field ${text} is not name=value`, 'for example --field channel=ops, or --field kind={{type}}');
  const name = text.slice(0, at);
  return [name, checkedValue(name, text.slice(at + 1), '--field')];
}

/** The profile's `upload_fields`: a JSON object of strings. */
export function parseFieldsSetting(text: string, source: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.values(value).every((entry) => typeof entry === 'string')) {
    throw new ConfigError('invalid_upload_fields', `upload_fields from ${source} is not a JSON object of strings`, `for example '{"channel": "ops"}'`);
  }
  for (const [name, entry] of Object.entries(value as Record<string, string>)) {
    if (name === '') throw new ConfigError('invalid_upload_fields', `upload_fields from ${source} has a field without a name`, 'give each field a name');
    checkedValue(name, entry, source);
  }
  return value as Record<string, string>;
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

/**
 * The shape to upload in. A multipart form or a JSON body holds the kind, the applicant, the extra
 * fields and the file (as base64 in JSON); a raw upload sends the file alone, so it refuses fields
 * rather than drop them.
 */
export function resolveUploadShape(flags: UploadShapeFlags, profile: Profile, profileName: string): UploadShape {
  const fromProfile = `profile "${profileName}"`;
  const pick = (flag: string | undefined, flagName: string, setting: keyof Profile): { value: string; source: string } | undefined => {
    if (flag !== undefined) return { value: flag, source: flagName };
    const saved = profile[setting];
    return saved === undefined ? undefined : { value: saved, source: `${setting} of ${fromProfile}` };
  };
  const encodingPick = pick(flags.encoding, '--encoding', 'upload_encoding');
  const encoding = encodingPick ? parseEncoding(encodingPick.value, encodingPick.source) : SANDBOX_UPLOAD_SHAPE.encoding;
  const names = {
    fileField: pick(flags.fileField, '--file-field', 'upload_file_field'),
    typeField: pick(flags.typeField, '--type-field', 'upload_type_field'),
    applicantField: pick(flags.applicantField, '--applicant-field', 'upload_applicant_field'),
  };
  const [fileField, typeField, applicantField] = (['fileField', 'typeField', 'applicantField'] as const).map((part) => {
    const picked = names[part];
    return picked ? { name: parseFieldName(picked.value, picked.source), source: picked.source } : { name: DEFAULT_NAMES[part], source: 'the default' };
  }) as [{ name: string; source: string }, { name: string; source: string }, { name: string; source: string }];

  const extra: Record<string, { value: string; source: string }> = {};
  if (profile.upload_fields !== undefined) {
    const source = `upload_fields of ${fromProfile}`;
    for (const [name, value] of Object.entries(parseFieldsSetting(profile.upload_fields, source))) extra[name] = { value, source };
  }
  for (const text of flags.fields ?? []) {
    const [name, value] = parseFieldFlag(text);
    extra[name] = { value, source: '--field' };
  }

  if (encoding === 'raw') {
    const named = [fileField, typeField, applicantField].find((part) => part.source.startsWith('--'));
    if (named) {
      throw fault(
        named.source,
        'fields_with_raw_upload',
        `${named.source} names a field, and a raw upload has none: it sends the file alone, as the body`,
        'leave it out, or use --encoding multipart or json',
      );
    }
    const [name, field] = Object.entries(extra)[0] ?? [];
    if (name !== undefined) {
      throw fault(
        field!.source,
        'fields_with_raw_upload',
        `the field ${name} (${field!.source}) cannot be sent: a raw upload sends the file alone, as the body`,
        'use --encoding multipart or json to send fields, or leave the field out',
      );
    }
    return { ...SANDBOX_UPLOAD_SHAPE, encoding, fields: {}, headers: { 'content-type': '{{content_type}}' } };
  }

  const named = [
    { ...typeField, what: 'the kind field', flag: '--type-field, and give the kind with --type' },
    { ...applicantField, what: 'the applicant field', flag: '--applicant-field' },
    { ...fileField, what: encoding === 'json' ? 'the field of the file' : 'the file part', flag: '--file-field' },
  ];
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
  const fields = {
    [typeField.name]: '{{type}}',
    [applicantField.name]: '{{applicant_id}}',
    ...Object.fromEntries(Object.entries(extra).map(([name, field]) => [name, field.value])),
  };
  if (encoding === 'json') return { ...SANDBOX_UPLOAD_SHAPE, encoding, fields: {}, body: { ...fields, [fileField.name]: '{{file_base64}}' } };
  return { ...SANDBOX_UPLOAD_SHAPE, encoding, fields, fileField: fileField.name };
}
