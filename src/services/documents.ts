import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ApiClient } from '../api/client.js';
import { dataOf } from '../api/data.js';
import { encodeMultipart, type FilePart, newBoundary } from '../api/multipart.js';
import type { Document, DocumentType } from '../api/types.js';
import { detectFormat } from '../documents/format.js';
import { SvcError } from '../errors.js';

/** The upload limit of POST /v1/documents: 10 MiB. */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Reads a file to upload and refuses, before anything is sent, one the service would not take. */
export async function readDocumentFile(path: string): Promise<FilePart> {
  const invalid = (code: string, message: string, hint: string) => new SvcError('invalidInput', code, message, hint);
  let bytes: Uint8Array;
  try {
    const handle = await open(path);
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw invalid('not_a_file', `${path} is not a regular file`, 'give the path of the document file itself');
      if (stats.size > MAX_DOCUMENT_BYTES) {
        throw invalid('file_too_large', `${path} is ${mib(stats.size)}; documents are limited to 10 MiB (${MAX_DOCUMENT_BYTES} bytes)`, 'scan it at a lower resolution, compress it, or split it into several documents');
      }
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
  const contentType = detectFormat(bytes);
  if (!contentType) {
    const start = Buffer.from(bytes.subarray(0, 8)).toString('hex').replace(/(..)(?=.)/g, '$1 ');
    throw invalid(
      'unsupported_format',
      `${path} is not a PDF, JPEG, PNG or UTF-8 text file (it starts with ${start}); the content decides, not the file name`,
      'export or scan the document as PDF, JPEG or PNG, or save text as UTF-8',
    );
  }
  return { filename: basename(path), contentType, bytes };
}

function countingStream(body: Blob, onProgress: (sent: number, total: number) => void): ReadableStream<Uint8Array> {
  let sent = 0;
  return body.stream().pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        sent += chunk.byteLength;
        onProgress(sent, body.size);
        controller.enqueue(chunk);
      },
    }),
  );
}

export interface DocumentUploadInput {
  file: FilePart;
  type: DocumentType;
  applicantId?: string | undefined;
}

/**
 * Uploads a document as multipart/form-data. The body is framed here and streamed with its
 * Content-Length, counting the bytes handed to the connection for `onProgress`.
 */
export async function uploadDocument(client: ApiClient, upload: DocumentUploadInput, onProgress: (sent: number, total: number) => void = () => undefined): Promise<Document> {
  const boundary = newBoundary();
  const form = encodeMultipart({ type: upload.type, applicant_id: upload.applicantId, file: upload.file }, boundary);
  return dataOf(
    await client.POST('/v1/documents', {
      // openapi-typescript types the binary file part as a string, so the typed body cannot hold
      // the file: the form is framed above, and the serializer only streams it.
      body: form as never,
      bodySerializer: () => countingStream(form, onProgress),
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(form.size) },
      duplex: 'half',
    }),
  );
}

export async function getDocument(client: ApiClient, id: string): Promise<Document> {
  return dataOf(await client.GET('/v1/documents/{id}', { params: { path: { id } } }));
}
