import type { OperationId } from '../../api/operations.js';
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import schemas from '../../api/schemas.json' with { type: 'json' };
import type { Document, DocumentType } from '../../api/types.js';
import { type Answer, type HandlerContext, ok, type Handler } from '../app.js';
import { HttpError } from '../http.js';
import { newId, nowIso } from '../../core/ids.js';

const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
const MAX_FILENAME_LENGTH = schemas.Document.properties.filename.maxLength;
const DOCUMENT_TYPES = new Set<DocumentType>(['passport', 'bank_statement', 'employment_letter', 'invitation_letter', 'travel_itinerary', 'other']);

interface Upload {
  fields: Map<string, string>;
  file?: { name: string; content: Buffer };
}

/** Parses the multipart form, stopping at the size limit without reading the rest of the file. */
function readUpload(request: IncomingMessage): Promise<Upload> {
  const type = request.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(type)) {
    return Promise.reject(new HttpError(415, 'unsupported_media_type', 'send the upload as multipart/form-data with a "file" part'));
  }
  return new Promise((resolve, reject) => {
    const upload: Upload = { fields: new Map() };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers, limits: { fileSize: MAX_DOCUMENT_BYTES, files: 1, fields: 10, fieldSize: 1024 } });
    } catch (error) {
      return reject(new HttpError(400, 'invalid_multipart', `the multipart body cannot be read: ${(error as Error).message}`));
    }
    parser.on('field', (name, value) => upload.fields.set(name, value));
    parser.on('file', (name, stream, info) => {
      if (name !== 'file') return stream.resume();
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        request.unpipe(parser);
        reject(new HttpError(413, 'file_too_large', `the file exceeds the ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB limit`, 'file', { connection: 'close' }));
      });
      stream.on('end', () => (upload.file = { name: info.filename ?? 'upload', content: Buffer.concat(chunks) }));
    });
    parser.on('error', (error: Error) => reject(new HttpError(400, 'invalid_multipart', `the multipart body cannot be read: ${error.message}`)));
    parser.on('close', () => resolve(upload));
    request.pipe(parser);
  });
}

async function upload({ app, request, workspaceId }: HandlerContext): Promise<Answer> {
  const { fields, file } = await readUpload(request);
  if (!file) throw new HttpError(422, 'invalid_request', 'the form has no "file" part', 'file');
  const type = fields.get('type');
  if (!type || !DOCUMENT_TYPES.has(type as DocumentType)) {
    throw new HttpError(422, 'invalid_request', `type must be one of ${[...DOCUMENT_TYPES].join(', ')}`, 'type');
  }
  const applicantId = fields.get('applicant_id') || null;
  if (applicantId !== null && !app.store.applicant(workspaceId, applicantId)) {
    throw new HttpError(422, 'invalid_request', `no applicant ${applicantId} in this workspace`, 'applicant_id');
  }
  if (file.content.length === 0) throw new HttpError(422, 'invalid_request', 'the file is empty', 'file');
  if (Array.from(file.name).length > MAX_FILENAME_LENGTH) {
    throw new HttpError(422, 'invalid_request', `the file name is longer than ${MAX_FILENAME_LENGTH} characters; rename the file`, 'file');
  }
  const document: Document = {
    id: newId('doc'),
    object: 'document',
    type: type as DocumentType,
    status: 'processing',
    red_flags: [],
    applicant_id: applicantId,
    filename: file.name,
    size_bytes: file.content.length,
    content_type: null,
    rejection: null,
    extracted: null,
    created_at: nowIso(),
  };
  app.store.insertDocument(workspaceId, document, file.content);
  app.processing.scheduleDocument(workspaceId, document.id);
  return ok(document, 201);
}

function getDocument({ app, params, workspaceId }: HandlerContext): Answer {
  const document = app.store.document(workspaceId, params[0]!);
  if (!document) throw new HttpError(404, 'not_found', `no document ${params[0]} in this workspace`);
  return ok(document);
}

export const documentHandlers = {
  uploadDocument: { scope: 'write', handle: upload },
  getDocument: { scope: 'read', handle: getDocument },
} satisfies Partial<Record<OperationId, Handler>>;
