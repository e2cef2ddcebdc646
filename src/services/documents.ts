import { accessSync, constants, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { jsonOf, resourceIn, fetchedResource } from '../api/answer.js';
import type { ApiClient } from '../api/client.js';
import type { FilePart } from '../api/multipart.js';
import type { Identified, DocumentAnswer } from '../api/types.js';
import { encodeUpload, SANDBOX_UPLOAD_SHAPE, type UploadShape } from '../api/upload-shape.js';
import { detectFormat } from '../documents/format.js';
import { SvcError } from '../core/errors.js';

/** The sandbox's upload limit (openapi.yaml's assumption; part 8 does not show the service's). */
const SANDBOX_MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * Reads a file to upload, refusing only what no service could take: a path that is not a readable
 * regular file, or an empty one. Its size and format are the service's to judge (`uploadNotes`).
 */
/** Whether `path` names a regular file this process can read: what a prompt for a document accepts. */
export function isReadableFile(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export async function readDocumentFile(path: string): Promise<FilePart> {
  const invalid = (code: string, message: string, hint: string) => new SvcError('invalidInput', code, message, hint);
  let bytes: Uint8Array;
  try {
    const handle = await open(path);
    try {
      if (!(await handle.stat()).isFile()) throw invalid('not_a_file', `${path} is not a regular file`, 'give the path of the document file itself');
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof SvcError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw invalid('file_not_found', `there is no file ${path}`, 'check the path');
    throw invalid('file_unreadable', `cannot read ${path} (${code ?? (error as Error).message})`, 'check that the file exists and that you may read it');
  }
  if (bytes.length === 0) throw invalid('empty_file', `${path} is empty`, 'give the file that holds the document');
  return { filename: basename(path), contentType: detectFormat(bytes) ?? 'application/octet-stream', bytes };
}

/** What the sandbox would refuse in this file, which another service may take: notes for the person uploading it. */
export function uploadNotes(file: FilePart): string[] {
  const notes: string[] = [];
  if (file.bytes.length > SANDBOX_MAX_DOCUMENT_BYTES) {
    notes.push(
      `${file.filename} is ${mib(file.bytes.length)} (${file.bytes.length} bytes), over the sandbox's limit of 10 MiB (${SANDBOX_MAX_DOCUMENT_BYTES} bytes); the service's limit is not stated, so it is sent`,
    );
  }
  if (!detectFormat(file.bytes)) {
    const start = Buffer.from(file.bytes.subarray(0, 8))
      .toString('hex')
      .replace(/(..)(?=.)/g, '$1 ');
    notes.push(
      `${file.filename} is not a PDF, JPEG, PNG or UTF-8 text file (it starts with ${start}), the formats the sandbox takes; it is sent as application/octet-stream for the service to judge`,
    );
  }
  return notes;
}

async function* counted(body: Blob, onProgress: (sent: number, total: number) => void): AsyncIterable<Uint8Array> {
  let sent = 0;
  for await (const chunk of body.stream() as AsyncIterable<Uint8Array>) {
    sent += chunk.byteLength;
    onProgress(sent, body.size);
    yield chunk;
  }
}

export interface DocumentUploadInput {
  file: FilePart;
  /** The document kind; the allowed kinds are the service's (openapi.yaml assumes DocumentType). */
  type?: string | undefined;
  applicantId?: string | undefined;
  /** How the service takes an upload; the sandbox's multipart form when left out. */
  shape?: UploadShape;
}

/**
 * Uploads a document in the service's shape (openapi.yaml's assumed multipart form by default). The
 * body is framed here and streamed with its Content-Length, counting the bytes handed to the
 * connection for `onProgress`. Any success status is taken.
 */
export async function uploadDocument(
  client: ApiClient,
  upload: DocumentUploadInput,
  onProgress: (sent: number, total: number) => void = () => undefined,
): Promise<DocumentAnswer> {
  const { headers, query, body } = encodeUpload(upload.shape ?? SANDBOX_UPLOAD_SHAPE, upload, upload.file);
  const answer = await client.POST('/v1/documents', {
    search: query,
    headers,
    upload: { contentType: headers['content-type']!, length: body.size, chunks: () => counted(body, onProgress) },
  });
  return resourceIn(jsonOf(answer, 'POST /v1/documents'));
}

export async function getDocument(client: ApiClient, id: string): Promise<Identified<DocumentAnswer>> {
  const answer = await client.GET('/v1/documents/{id}', { path: { id } });
  return fetchedResource(jsonOf(answer, `GET /v1/documents/${id}`), `GET /v1/documents/${id}`);
}
