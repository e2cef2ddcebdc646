/**
 * `--fixtures`: the request bodies the specification leaves open (applicant fields, the report's
 * destination, visa type and purpose, the upload's encoding), given by the user for an
 * implementation that chose other shapes than openapi.yaml, and an input the implementation fails a
 * report for (the specification states none). Every key is optional; what is left out keeps the
 * kit's defaults (openapi.yaml's shapes; a report for an applicant whose only document was rejected).
 */
import { constants, type Stats } from 'node:fs';
import { open, readFile, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import {
  describeUploadShape,
  encodeUpload,
  headerProblem,
  PLACEHOLDER,
  UPLOAD_ENCODINGS,
  UPLOAD_PLACEHOLDERS,
  type UploadEncoding,
  type UploadShape,
} from '../api/upload-shape.js';
import { problemsOf } from '../api/validate.js';
import { detectFormat } from '../documents/format.js';
import { SvcError } from '../core/errors.js';
import { readJsonObjectFile } from '../core/json-file.js';
import { SAMPLE_APPLICANT, SAMPLE_REPORT, samplePassportPdf } from './samples.js';

type Json = Record<string, unknown>;

/** A file the kit uploads. */
export interface UploadFile {
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

/** The upload's shape (the vocabulary `documents upload` shares), and the file to upload. */
export interface DocumentFixture extends UploadShape {
  /** The file to upload instead of the kit's sample passport. */
  file: UploadFile | undefined;
}

/**
 * `failing_report`: a report the implementation is expected to end in its failed outcome (part 3),
 * made for an applicant of its own.
 */
interface FailingReportFixture {
  /** Fields laid over the applicant's body (`applicant`, or the kit's). */
  applicant: Json;
  /** Fields laid over the report's (`report`, or the kit's). */
  report: Json;
  /** A file uploaded for the applicant before the report, in the shape of `document` (an expired passport, say). */
  file: UploadFile | undefined;
}

export interface KitFixtures {
  applicant: Json;
  /** The report's fields but `applicant_id`, which the kit puts in. */
  report: Json;
  document: DocumentFixture;
  /** The input that fails a report, when the user gave one. */
  failingReport: FailingReportFixture | undefined;
  /** Which the user gave (the others are the kit's defaults). */
  given: { applicant: boolean; report: boolean; document: boolean; failingReport: boolean };
}

/** The kit uploads its passport with no kind of its own: `{{type}}` is the CLI's (`--type`). */
const PLACEHOLDERS = UPLOAD_PLACEHOLDERS.filter((name) => name !== 'type');

const DEFAULT_DOCUMENT: DocumentFixture = {
  encoding: 'multipart',
  fields: { type: 'passport', applicant_id: '{{applicant_id}}' },
  fileField: 'file',
  body: undefined,
  headers: {},
  query: {},
  file: undefined,
};

export const DEFAULT_FIXTURES: KitFixtures = {
  applicant: SAMPLE_APPLICANT,
  report: SAMPLE_REPORT,
  document: DEFAULT_DOCUMENT,
  failingReport: undefined,
  given: { applicant: false, report: false, document: false, failingReport: false },
};

const stringMap = { type: 'object', additionalProperties: { type: 'string' } };
const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    applicant: { type: 'object' },
    report: { type: 'object' },
    document: {
      type: 'object',
      additionalProperties: false,
      properties: {
        encoding: { enum: [...UPLOAD_ENCODINGS] },
        fields: stringMap,
        file_field: { type: 'string', minLength: 1 },
        body: {},
        headers: stringMap,
        query: stringMap,
        file: { type: 'string', minLength: 1 },
      },
    },
    failing_report: {
      type: 'object',
      additionalProperties: false,
      properties: {
        applicant: { type: 'object' },
        report: { type: 'object' },
        file: { type: 'string', minLength: 1 },
      },
    },
  },
};

const validate = new Ajv2020({ allErrors: true, strict: true }).compile(SCHEMA);

/** The rules of each encoding: which keys of its own it takes, which it needs (`headers` and `query` go with any). */
const ENCODING_KEYS: Record<UploadEncoding, { takes: string[]; needs: string[] }> = {
  multipart: { takes: ['fields', 'file_field'], needs: [] },
  json: { takes: ['body'], needs: ['body'] },
  raw: { takes: [], needs: [] },
};

function invalid(path: string, problem: string, hint = 'see "Pointing the kit at an implementation with its own shapes" in docs/contract-kit.md'): SvcError {
  return new SvcError('usage', 'invalid_fixtures', `${path}: ${problem}`, hint);
}

/** Every `{{name}}` in the strings of a value, with the key path where it stands. */
function placeholdersIn(value: unknown, path: string): Array<{ name: string; path: string }> {
  if (typeof value === 'string') return [...value.matchAll(PLACEHOLDER)].map((match) => ({ name: match[1]!, path }));
  if (Array.isArray(value)) return value.flatMap((item, index) => placeholdersIn(item, `${path}[${index}]`));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([key, item]) => placeholdersIn(item, `${path}.${key}`));
  return [];
}

/**
 * The largest `document.file` the kit uploads: three times the sandbox's 10 MiB upload limit (the
 * specification states none), so any passport scan fits, while the copies the kit makes of an upload
 * (the file, its base64 in a JSON body, a multipart body) stay bounded.
 */
export const MAX_DOCUMENT_FILE_BYTES = 32 * 1024 * 1024;

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isFIFO()) return 'a named pipe';
  return 'a socket';
}

/**
 * The file of `document.file` (or `failing_report.file`: `key`), which the kit sends to the
 * implementation under test: a fixtures file that names any path would upload whatever it names
 * (/proc/self/environ and the CI's secrets in it, /dev/zero without end). So it must be a regular
 * file of at most MAX_DOCUMENT_FILE_BYTES, in the fixtures file's directory once links are resolved
 * (anywhere with `allowOutside`).
 */
async function readUploadFile(fixturesPath: string, given: string, allowOutside: boolean, key: string): Promise<UploadFile> {
  const named = resolve(dirname(fixturesPath), given);
  const cannotRead = (error: NodeJS.ErrnoException) =>
    invalid(key, `cannot read ${named} (${error.code ?? error.message})`, 'give a path relative to the fixtures file');
  const path = await realpath(named).catch((error: NodeJS.ErrnoException) => {
    throw cannotRead(error);
  });
  const directory = await realpath(dirname(resolve(fixturesPath)));
  const inside = relative(directory, path);
  if (!allowOutside && (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))) {
    throw invalid(
      key,
      `${given}${path === given ? '' : ` (${path}${path === named ? '' : ' once links are resolved'})`} is outside ${directory}, the directory of the fixtures file`,
      'put the file beside the fixtures file, or pass --fixtures-allow-outside to upload it from where it is',
    );
  }
  // Not blocking: opening a named pipe would otherwise wait for a writer.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    throw cannotRead(error);
  });
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw invalid(key, `${path} is ${kindOf(stats)}, not a regular file`, 'give a passport scan: a regular file');
    if (stats.size > MAX_DOCUMENT_FILE_BYTES) {
      throw invalid(
        key,
        `${path} is ${stats.size} bytes, over the kit's cap of ${MAX_DOCUMENT_FILE_BYTES / 1024 / 1024} MiB (${MAX_DOCUMENT_FILE_BYTES} bytes) for an upload`,
        'give a smaller scan: a file of a few MiB checks an upload as well',
      );
    }
    // The size the system reports, no more: files of /proc and /sys report 0 whatever they hold.
    if (stats.size === 0) throw invalid(key, `${path} is empty (0 bytes as the system reports it)`, 'give a passport scan');
    const bytes = new Uint8Array(stats.size);
    const { bytesRead } = await handle.read(bytes, 0, stats.size, 0);
    const content = bytes.subarray(0, bytesRead);
    return { name: basename(path), contentType: detectFormat(content) ?? 'application/octet-stream', bytes: content };
  } finally {
    await handle.close();
  }
}

function documentFixture(raw: Json | undefined, file: UploadFile | undefined): DocumentFixture {
  if (!raw) return DEFAULT_DOCUMENT;
  const encoding = (raw.encoding as UploadEncoding | undefined) ?? 'multipart';
  const rules = ENCODING_KEYS[encoding];
  for (const key of ['fields', 'file_field', 'body']) {
    if (raw[key] !== undefined && !rules.takes.includes(key))
      throw invalid(
        `document.${key}`,
        `is not used with the encoding ${encoding}`,
        `it belongs to ${Object.entries(ENCODING_KEYS).find(([, other]) => other.takes.includes(key))![0]}; remove it or change document.encoding`,
      );
  }
  for (const key of rules.needs) if (raw[key] === undefined) throw invalid(`document.${key}`, `is required with the encoding ${encoding}`);
  const headers = (raw.headers as Record<string, string> | undefined) ?? {};
  for (const name of Object.keys(headers)) {
    const problem = headerProblem(name, encoding);
    if (problem) throw invalid(`document.headers.${name}`, problem, 'remove it, or give the header the implementation takes');
  }
  return {
    encoding,
    fields: (raw.fields as Record<string, string> | undefined) ?? (encoding === 'multipart' ? DEFAULT_DOCUMENT.fields : {}),
    fileField: (raw.file_field as string | undefined) ?? 'file',
    body: raw.body,
    headers,
    query: (raw.query as Record<string, string> | undefined) ?? {},
    file,
  };
}

/**
 * Reads and checks a fixtures file; any fault is a usage error naming the key at fault.
 * `allowOutside`: its document.file and failing_report.file may be outside the fixtures file's directory.
 */
export async function readFixtures(path: string, { allowOutside = false } = {}): Promise<KitFixtures> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new SvcError(
      'usage',
      'fixtures_unreadable',
      `cannot read the fixtures file ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      'check the path given with --fixtures',
    );
  }
  let value: unknown;
  try {
    value = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new SvcError(
      'usage',
      'invalid_fixtures',
      `${path} is not valid ${/\.ya?ml$/i.test(path) ? 'YAML' : 'JSON'}: ${(error as Error).message.split('\n')[0]}`,
      'a JSON file (.json) or a YAML file (.yaml, .yml) holding an object',
    );
  }
  if (!validate(value)) {
    const problems = problemsOf(validate.errors).map((problem) => `${problem.field || '(the file)'}: ${problem.message}`);
    throw new SvcError(
      'usage',
      'invalid_fixtures',
      `${path}: ${problems.join('; ')}`,
      'the keys are applicant, report, document (encoding, fields, file_field, body, headers, query, file) and failing_report (applicant, report, file); see docs/contract-kit.md',
    );
  }
  const given = value as { applicant?: Json; report?: Json; document?: Json; failing_report?: Json };
  if (given.failing_report && Object.keys(given.failing_report).length === 0)
    throw invalid('failing_report', 'is empty', 'give the applicant, report or file that makes the implementation fail a report, or remove failing_report');
  for (const found of placeholdersIn(
    { report: given.report, applicant: given.applicant, document: given.document, failing_report: given.failing_report },
    '',
  ).map((item) => ({
    ...item,
    path: item.path.slice(1),
  }))) {
    if (!found.path.startsWith('document.')) throw invalid(found.path, `placeholders such as {{${found.name}}} are only taken in document`);
    if (!(PLACEHOLDERS as readonly string[]).includes(found.name))
      throw invalid(
        found.path,
        `{{${found.name}}} is no placeholder the kit knows`,
        `the placeholders are ${PLACEHOLDERS.map((name) => `{{${name}}}`).join(', ')}`,
      );
  }
  const file = typeof given.document?.file === 'string' ? await readUploadFile(path, given.document.file, allowOutside, 'document.file') : undefined;
  return {
    applicant: given.applicant ?? DEFAULT_FIXTURES.applicant,
    report: given.report ?? DEFAULT_FIXTURES.report,
    document: documentFixture(given.document, file),
    failingReport: given.failing_report && (await failingReportFixture(given.failing_report, path, allowOutside)),
    given: {
      applicant: given.applicant !== undefined,
      report: given.report !== undefined,
      document: given.document !== undefined,
      failingReport: given.failing_report !== undefined,
    },
  };
}

async function failingReportFixture(raw: Json, fixturesPath: string, allowOutside: boolean): Promise<FailingReportFixture> {
  return {
    applicant: (raw.applicant as Json | undefined) ?? {},
    report: (raw.report as Json | undefined) ?? {},
    file: typeof raw.file === 'string' ? await readUploadFile(fixturesPath, raw.file, allowOutside, 'failing_report.file') : undefined,
  };
}

/** The body of POST /v1/reports for an applicant: the fixtures' report, or the fields given. */
export function reportBody(fixtures: Pick<KitFixtures, 'report'>, applicantId: string): Json {
  return { ...fixtures.report, applicant_id: applicantId };
}

/** The kit's sample passport, or the file of the fixtures. */
export function passportFile(fixtures: KitFixtures): UploadFile {
  return fixtures.document.file ?? { name: 'passport.pdf', contentType: 'application/pdf', bytes: samplePassportPdf() };
}

/** The request of POST /v1/documents (its path with the query string) that uploads `file` for the applicant, in the fixtures' shape. */
export async function documentRequest(
  fixture: DocumentFixture,
  applicantId: string,
  file: UploadFile,
): Promise<{ path: string; headers: Record<string, string>; body: Uint8Array }> {
  const upload = encodeUpload(fixture, { applicantId }, { filename: file.name, contentType: file.contentType, bytes: file.bytes });
  return {
    path: `/v1/documents${upload.query ? `?${upload.query}` : ''}`,
    headers: upload.headers,
    body: new Uint8Array(await upload.body.arrayBuffer()),
  };
}

/** How the kit uploads, in words, for a setup error. */
export const describeEncoding: (fixture: DocumentFixture) => string = describeUploadShape;

/** The fixtures of `--fixtures` (or the kit's own), with the applicant of `--applicant-file` when one is given. */
export async function readKitFixtures(path: string | undefined, applicantFile: string | undefined, allowOutside = false): Promise<KitFixtures> {
  const fixtures = path ? await readFixtures(path, { allowOutside }) : DEFAULT_FIXTURES;
  if (!applicantFile) return fixtures;
  if (fixtures.given.applicant)
    throw new SvcError('usage', 'applicant_given_twice', `--applicant-file and the "applicant" of ${path} both give the applicant`, 'keep one of them');
  return {
    ...fixtures,
    applicant: await readJsonObjectFile(
      applicantFile,
      { what: 'the applicant file', flag: '--applicant-file', example: '{"given_names": "Ana", "nationality": "PT"}' },
      { kind: 'config', unreadable: 'applicant_file_unreadable', invalid: 'applicant_file_invalid' },
    ),
    given: { ...fixtures.given, applicant: true },
  };
}
