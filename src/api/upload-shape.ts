/**
 * The shape of POST /v1/documents. Its encoding is not shown (spec part 4), so the CLI
 * (`documents upload`, a profile's upload settings) and the kit (`--fixtures`) both send the shape
 * they are given, in one vocabulary: an `encoding` (multipart, json or raw), the `fields` of a
 * multipart form and the name of its file part (`file_field`), the `body` of a JSON upload, the
 * request `headers` and `query` parameters of any of them, and placeholders filled in at upload time.
 */
import { encodeMultipart, type FilePart, newBoundary } from './multipart.js';

export const UPLOAD_ENCODINGS = ['multipart', 'json', 'raw'] as const;
export type UploadEncoding = (typeof UPLOAD_ENCODINGS)[number];

export interface UploadShape {
  encoding: UploadEncoding;
  /** multipart: the text fields, with placeholders. */
  fields: Record<string, string>;
  /** multipart: the name of the file part. */
  fileField: string;
  /** json: the body, with placeholders. */
  body: unknown;
  /** The request headers, with placeholders (raw: the file's media type unless they name one). */
  headers: Record<string, string>;
  /** The query parameters of POST /v1/documents, with placeholders. */
  query: Record<string, string>;
}

/** Placeholders a shape's strings may hold, filled in at upload time. */
export const UPLOAD_PLACEHOLDERS = ['applicant_id', 'type', 'file_base64', 'file_name', 'content_type'] as const;
type UploadPlaceholder = (typeof UPLOAD_PLACEHOLDERS)[number];

/** The values of the placeholders; `type` and `applicant_id` may be unknown (the CLI sends without them). */
type PlaceholderValues = Record<UploadPlaceholder, string | undefined>;

/** `{{name}}`, spaces allowed inside the braces. */
export const PLACEHOLDER = /\{\{\s*([^}]*?)\s*\}\}/g;

/** The sandbox's upload (openapi.yaml's assumption): a multipart form of type, applicant_id and the file part `file`. */
export const SANDBOX_UPLOAD_SHAPE: UploadShape = {
  encoding: 'multipart',
  fields: { type: '{{type}}', applicant_id: '{{applicant_id}}' },
  fileField: 'file',
  body: undefined,
  headers: {},
  query: {},
};

/** A header name as HTTP takes it (a token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** What is wrong with a header of a shape in this encoding (in any, when none is given), if anything. */
export function headerProblem(name: string, encoding?: UploadEncoding): string | undefined {
  if (!HEADER_NAME.test(name)) return "is not a header name (letters, digits and !#$%&'*+.^_`|~-)";
  const lower = name.toLowerCase();
  if (lower === 'authorization') return 'carries the key, which svc sets';
  if (lower === 'content-type' && encoding === 'multipart') return "is the multipart form's own (it carries the boundary)";
  return undefined;
}

/** Whether a shape sends the value of a placeholder anywhere. */
export function holdsPlaceholder(shape: UploadShape, name: UploadPlaceholder): boolean {
  return [...JSON.stringify([shape.fields, shape.body, shape.headers, shape.query]).matchAll(PLACEHOLDER)].some((match) => match[1] === name);
}

const MISSING = Symbol('missing');

function filled(text: string, values: PlaceholderValues): string | typeof MISSING {
  let missing = false;
  const result = text.replace(PLACEHOLDER, (_match, name: UploadPlaceholder) => {
    const value = values[name];
    if (value === undefined) missing = true;
    return value ?? '';
  });
  return missing ? MISSING : result;
}

/**
 * `value` with its placeholders filled in. A string naming a placeholder without a value is left
 * out of the object or array that holds it: a kind not given is not sent.
 */
function fillPlaceholders(value: unknown, values: PlaceholderValues): unknown {
  const fill = (item: unknown): unknown => {
    if (typeof item === 'string') return filled(item, values);
    if (Array.isArray(item)) return item.map(fill).filter((entry) => entry !== MISSING);
    if (typeof item === 'object' && item !== null)
      return Object.fromEntries(
        Object.entries(item)
          .map(([key, entry]) => [key, fill(entry)] as const)
          .filter(([, entry]) => entry !== MISSING),
      );
    return item;
  };
  const result = fill(value);
  return result === MISSING ? undefined : result;
}

/** An upload ready to send: its headers (lower-case names), its query string (without `?`, empty for none) and its body, of known size. */
export interface EncodedUpload {
  headers: Record<string, string>;
  query: string;
  body: Blob;
}

/** The request of POST /v1/documents that uploads `file` in `shape`. */
export function encodeUpload(shape: UploadShape, values: { applicantId?: string | undefined; type?: string | undefined }, file: FilePart): EncodedUpload {
  const placeholders: PlaceholderValues = {
    applicant_id: values.applicantId,
    type: values.type,
    // Only where the shape sends it: a copy a third larger than the file.
    file_base64: holdsPlaceholder(shape, 'file_base64') ? Buffer.from(file.bytes).toString('base64') : undefined,
    file_name: file.filename,
    content_type: file.contentType,
  };
  const filledMap = (map: Record<string, string>) => Object.entries(fillPlaceholders(map, placeholders) as Record<string, string>);
  const headers = Object.fromEntries(filledMap(shape.headers).map(([name, value]) => [name.toLowerCase(), value]));
  const query = filledMap(shape.query)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
  switch (shape.encoding) {
    case 'multipart': {
      const boundary = newBoundary();
      const fields = fillPlaceholders(shape.fields, placeholders) as Record<string, string>;
      return {
        headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
        query,
        body: encodeMultipart({ ...fields, [shape.fileField]: file }, boundary),
      };
    }
    case 'json':
      return {
        headers: { 'content-type': 'application/json', ...headers },
        query,
        body: new Blob([JSON.stringify(fillPlaceholders(shape.body, placeholders))]),
      };
    case 'raw':
      return { headers: { 'content-type': file.contentType, ...headers }, query, body: new Blob([file.bytes]) };
  }
}

/** How a shape uploads, in words. */
export function describeUploadShape(shape: UploadShape): string {
  const how = {
    multipart: `as multipart/form-data with the fields ${[...Object.keys(shape.fields), shape.fileField].join(', ')}`,
    json: 'as a JSON body',
    raw: 'as the raw file',
  }[shape.encoding];
  const extras = [
    ...(Object.keys(shape.headers).length > 0 ? [`the headers ${Object.keys(shape.headers).join(', ')}`] : []),
    ...(Object.keys(shape.query).length > 0 ? [`the query parameters ${Object.keys(shape.query).join(', ')}`] : []),
  ];
  return extras.length > 0 ? `${how}, with ${extras.join(' and ')}` : how;
}
