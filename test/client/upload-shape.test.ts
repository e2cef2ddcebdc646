import { describe, expect, it } from 'vitest';
import { encodeUpload, SANDBOX_UPLOAD_SHAPE } from '../../src/api/upload-shape.js';
import { resolveUploadShape } from '../../src/config/upload-settings.js';

const FILE = { filename: 'scan.png', contentType: 'image/png', bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff]) };

async function text(body: Blob): Promise<string> {
  return Buffer.from(await body.arrayBuffer()).toString('latin1');
}

describe('encodeUpload', () => {
  it("sends the sandbox's form by default, in its order, leaving out a kind not given", async () => {
    const upload = encodeUpload(SANDBOX_UPLOAD_SHAPE, { applicantId: 'app_1' }, FILE);
    const boundary = /boundary=(\S+)$/.exec(upload.headers['content-type']!)![1]!;
    expect(await text(upload.body)).toBe(
      `--${boundary}\r\nContent-Disposition: form-data; name="applicant_id"\r\n\r\napp_1\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="scan.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG\xff\r\n` +
        `--${boundary}--\r\n`,
    );
  });

  it('fills the placeholders of a JSON body, and leaves out a field whose value is not known', async () => {
    const shape = resolveUploadShape(
      { encoding: 'json', typeField: 'kind', fileField: 'content', fields: ['name={{file_name}} ({{content_type}})', 'note=for {{applicant_id}}'] },
      {},
      'default',
    );
    const upload = encodeUpload(shape, { type: 'passport' }, FILE);
    expect(upload.headers).toEqual({ 'content-type': 'application/json' });
    expect(JSON.parse(await text(upload.body))).toEqual({ kind: 'passport', name: 'scan.png (image/png)', content: 'iVBOR/8=' });
  });

  it('sends the raw file as the body with its media type', async () => {
    const upload = encodeUpload(resolveUploadShape({ encoding: 'raw' }, {}, 'default'), {}, FILE);
    expect(upload.headers).toEqual({ 'content-type': 'image/png' });
    expect(upload.query).toBe('');
    expect(new Uint8Array(await upload.body.arrayBuffer())).toEqual(FILE.bytes);
  });

  it('puts values in the query string and the headers, encoded, leaving out those whose value is not known', () => {
    const shape = resolveUploadShape(
      { encoding: 'raw', query: ['type={{type}}', 'applicant_id={{applicant_id}}', 'name={{file_name}}'], headers: ['X-Kind={{type}}', 'X-Source=cli'] },
      {},
      'default',
    );
    const upload = encodeUpload(shape, { applicantId: 'app_1 &x=1' }, FILE);
    expect(upload.query).toBe('applicant_id=app_1%20%26x%3D1&name=scan.png');
    expect(upload.headers).toEqual({ 'content-type': 'image/png', 'x-source': 'cli' });
  });
});

describe('resolveUploadShape', () => {
  it('takes each part from its flag, else the profile, else the sandbox', () => {
    const profile = { upload_file_field: 'upload', upload_type_field: 'kind', upload_fields: '{"channel":"ops","source":"profile"}' };
    expect(resolveUploadShape({ applicantField: 'owner', fields: ['source=cli'] }, profile, 'other')).toEqual({
      ...SANDBOX_UPLOAD_SHAPE,
      fields: { kind: '{{type}}', owner: '{{applicant_id}}', channel: 'ops', source: 'cli' },
      fileField: 'upload',
    });
  });

  it("adds the query parameters and headers of the flags to the profile's, a flag winning for a name both give", () => {
    const profile = { upload_query: '{"type":"{{type}}","channel":"profile"}', upload_headers: '{"X-Source":"profile","x-team":"ops"}' };
    expect(resolveUploadShape({ query: ['channel=cli'], headers: ['x-source=cli'] }, profile, 'other')).toMatchObject({
      query: { type: '{{type}}', channel: 'cli' },
      headers: { 'x-source': 'cli', 'x-team': 'ops' },
    });
  });

  it('names the setting of the profile at fault, as a configuration error', () => {
    expect(() => resolveUploadShape({}, { upload_encoding: 'xml' }, 'other')).toThrow(
      expect.objectContaining({ kind: 'config', message: 'xml from upload_encoding of profile "other" is no upload encoding' }),
    );
  });
});
