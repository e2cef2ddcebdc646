import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { scanPdfForActiveContent } from '../../src/sandbox/pdf-active-content.js';

const TEN_MIB = 10 * 1024 * 1024;
const HEADER = '%PDF-1.7\n1 0 obj\n';

/** The text repeated up to 10 MiB after the header: the size of the largest upload. */
function tenMiBOf(unit: string, header = HEADER): string {
  return header + unit.repeat(Math.floor((TEN_MIB - header.length) / unit.length));
}

function bytes(text: string): Buffer {
  return Buffer.from(text, 'latin1');
}

function objectStream(number: number, content: string): string {
  const data = deflateSync(content).toString('latin1');
  return `${number} 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${data.length} >>\nstream\n${data}\nendstream\nendobj\n`;
}

// On a scan that looks back to the object's start for every `stream`, each of these takes about an hour.
describe('scanPdfForActiveContent reads a 10 MiB file once, whatever its shape', () => {
  it('one object followed by `stream` keywords only', () => {
    expect(scanPdfForActiveContent(bytes(tenMiBOf('stream\n')))).toEqual({ verdict: 'clean' });
  });

  it('`stream` keywords without an object, and `stream` and `endstream` pairs', () => {
    expect(scanPdfForActiveContent(bytes(tenMiBOf('stream\n', '%PDF-1.7\n')))).toEqual({ verdict: 'clean' });
    expect(scanPdfForActiveContent(bytes(tenMiBOf('stream\nendstream\n')))).toEqual({ verdict: 'clean' });
  });

  it('one object stream dictionary followed by `stream` keywords that each start a valid compressed stream', () => {
    const header = `${HEADER}<< /Type /ObjStm /Filter /FlateDecode >>\n`;
    const pdf = bytes(tenMiBOf(`stream\n${deflateSync('').toString('latin1')}`, header));
    // Object streams that start inside one another's data are not a well-formed file.
    expect(scanPdfForActiveContent(pdf)).toEqual({ verdict: 'damaged' });
  });

  it('still finds JavaScript in an object stream after 10 MiB of `stream` keywords', () => {
    const pdf = bytes(`${tenMiBOf('stream\n')}\nendstream\nendobj\n${objectStream(2, '<< /S /JavaScript /JS (app.alert(1)) >>')}`);
    expect(scanPdfForActiveContent(pdf)).toEqual({ verdict: 'active_content', name: 'JavaScript' });
  });
});

describe('scanPdfForActiveContent: where object streams are looked for', () => {
  it('in the data of another stream too, since a cross-reference table may point there', () => {
    const inner = objectStream(2, '<< /S /Launch /F (cmd.exe) >>');
    const pdf = bytes(`${HEADER}<< /Length ${inner.length} >>\nstream\n${inner}\nendstream\nendobj\n`);
    expect(scanPdfForActiveContent(pdf)).toEqual({ verdict: 'active_content', name: 'Launch' });
  });

  it('in every object stream, not only the first', () => {
    const pdf = bytes(`%PDF-1.7\n${objectStream(1, '<< /Type /Page >>')}${objectStream(2, '<< /Type /Annot /Subtype /RichMedia >>')}`);
    expect(scanPdfForActiveContent(pdf)).toEqual({ verdict: 'active_content', name: 'RichMedia' });
  });

  it('takes object streams that inflate to more than 16 MiB in all for a decompression bomb', () => {
    const nineMiB = ' '.repeat(9 * 1024 * 1024);
    expect(scanPdfForActiveContent(bytes(`%PDF-1.7\n${objectStream(1, nineMiB)}`))).toEqual({ verdict: 'clean' });
    expect(scanPdfForActiveContent(bytes(`%PDF-1.7\n${objectStream(1, nineMiB)}${objectStream(2, nineMiB)}`))).toEqual({ verdict: 'damaged' });
  });
});
