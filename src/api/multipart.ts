import { randomBytes } from 'node:crypto';

export interface FilePart {
  filename: string;
  contentType: string;
  bytes: Uint8Array;
}

export type FormFields = Record<string, string | FilePart | undefined>;

/** A random boundary: 128 bits make its appearance inside a file practically impossible. */
export function newBoundary(): string {
  return `svc-${randomBytes(16).toString('hex')}`;
}

// As browsers encode names in multipart/form-data (WHATWG HTML): a quote or a line break would end the header.
function quoted(text: string): string {
  return `"${text.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;
}

/**
 * A multipart/form-data body (RFC 7578) of the given fields, in their order; undefined fields
 * are left out. A Blob, so that its size is known before it is sent.
 */
export function encodeMultipart(fields: FormFields, boundary: string): Blob {
  const parts: Array<string | Uint8Array> = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (typeof value === 'string') {
      parts.push(`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}\r\n`);
    } else {
      parts.push(
        `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}; filename=${quoted(value.filename)}\r\nContent-Type: ${value.contentType}\r\n\r\n`,
        value.bytes,
        '\r\n',
      );
    }
  }
  parts.push(`--${boundary}--\r\n`);
  return new Blob(parts);
}
