import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodeMultipart } from '../../../src/api/multipart.js';
import type { Applicant, Document } from '../../../src/api/types.js';
import { ExitCode } from '../../../src/core/errors.js';
import { buildMrz } from '../../../src/sandbox/mrz.js';
import { apiError, type Handler, json, type RecordedRequest, startServer, type TestServer } from '../../helpers/server.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { createApplicant, ERIKA, parsed } from '../../helpers/sandbox-cli.js';
import { HANG_MS } from '../../helpers/hang.js';
import { ANALYSED, PDF, REJECTED, UPLOADED } from './fixtures.js';

const KEY = 'svc_test_documents0123456789abcdefghijk';
const MAX = 10 * 1024 * 1024;

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from([0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0xff, 0x00])]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0xff, 0xd9]);
const TEXT = Buffer.from('Employment letter\nSalary: 3 200 € a month\n');
const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00]);

let server: TestServer;
let answer: Handler;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startServer((request, response, index) => answer(request, response, index));
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  env = isolatedEnv({ SVC_BASE_URL: server.url, SVC_API_KEY: KEY });
  answer = (request, response) => {
    if (request.method === 'POST') return json(response, 201, UPLOADED);
    const id = request.path.split('/').at(-1);
    json(response, 200, id === REJECTED.id ? REJECTED : ANALYSED);
  };
});

function svc(args: string[]) {
  return svcInProcess(args, { env });
}

/** Writes a file in this test's home and returns its path. */
function file(name: string, content: Buffer): string {
  const path = join(env.HOME!, name);
  writeFileSync(path, content);
  return path;
}

/** The multipart form as the server received it, parsed by undici's own parser. */
async function formOf(request: RecordedRequest): Promise<FormData> {
  return new Response(request.raw, { headers: { 'content-type': String(request.headers['content-type']) } }).formData();
}

describe('svc documents upload', () => {
  it('sends a multipart/form-data POST /v1/documents with the file, its type and applicant, and prints the document with --json', async () => {
    const result = await svc(['documents', 'upload', file('passport.pdf', PDF), '--type', 'passport', '--applicant', 'app_4Jd92kQz', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(UPLOADED);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/documents' });
    expect(request?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=svc-[0-9a-f]{32}$/);
    expect(request?.headers['content-length']).toBe(String(request?.raw.length));
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    const form = await formOf(request!);
    expect([...form.keys()]).toEqual(['type', 'applicant_id', 'file']);
    expect(form.get('type')).toBe('passport');
    expect(form.get('applicant_id')).toBe('app_4Jd92kQz');
    const sent = form.get('file') as File;
    expect(sent.name).toBe('passport.pdf');
    expect(sent.type).toBe('application/pdf');
    expect(Buffer.from(await sent.arrayBuffer())).toEqual(PDF);
  });

  it.each([
    ['scan.pdf', PNG, 'image/png'],
    ['photo.jpg', JPEG, 'image/jpeg'],
    ['letter', TEXT, 'text/plain'],
  ])('recognises %s by its content as %s, whatever its name', async (name, content, type) => {
    const result = await svc(['documents', 'upload', file(name, content), '--type', 'other']);
    expect(result.code).toBe(0);
    const form = await formOf(server.requests[0]!);
    expect(form.has('applicant_id')).toBe(false);
    const sent = form.get('file') as File;
    expect(sent.name).toBe(name);
    expect(sent.type).toBe(type);
    expect(Buffer.from(await sent.arrayBuffer())).toEqual(content);
  });

  it.each([
    ['an executable named passport.pdf', ELF, 'it starts with 7f 45 4c 46 02 01 01 00'],
    ['text that is not UTF-8', Buffer.from('Gehalt: 3 200 \xa4', 'latin1'), 'not a PDF, JPEG, PNG or UTF-8 text file'],
  ])("sends %s as application/octet-stream with a warning: the formats are the service's to judge", async (_what, content, message) => {
    const result = await svc(['documents', 'upload', file('passport.pdf', content), '--type', 'passport']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('sent as application/octet-stream for the service to judge');
    const sent = (await formOf(server.requests[0]!)).get('file') as File;
    expect(sent.type).toBe('application/octet-stream');
    expect(Buffer.from(await sent.arrayBuffer())).toEqual(content);
  });

  it('sends a file of exactly 10 MiB, without a progress bar when stderr is not a terminal', async () => {
    const content = Buffer.alloc(MAX, 0x20);
    PDF.copy(content);
    const result = await svc(['documents', 'upload', file('big.pdf', content), '--type', 'bank_statement']);
    expect(result.code).toBe(0);
    const sent = (await formOf(server.requests[0]!)).get('file') as File;
    expect(sent.size).toBe(MAX);
    expect(result.stderr).not.toContain('Uploading');
  });

  it("sends a file over the sandbox's 10 MiB with a warning: part 8 does not show the service's limit", async () => {
    const content = Buffer.alloc(MAX + 1, 0x20);
    PDF.copy(content);
    const result = await svc(['documents', 'upload', file('big.pdf', content), '--type', 'bank_statement', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "big.pdf is 10.0 MiB (10485761 bytes), over the sandbox's limit of 10 MiB (10485760 bytes); the service's limit is not stated, so it is sent",
    );
    expect(((await formOf(server.requests[0]!)).get('file') as File).size).toBe(MAX + 1);
  });

  it.each([
    ['a missing file', (home: string) => join(home, 'nope.pdf'), 'there is no file'],
    ['a directory', (home: string) => home, 'is not a regular file'],
    ['an empty file', () => file('empty.pdf', Buffer.alloc(0)), 'is empty'],
  ])('refuses %s (exit 6)', async (_what, path, message) => {
    const result = await svc(['documents', 'upload', path(env.HOME!), '--type', 'passport']);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(result.stderr).toContain(message);
    expect(server.requests).toHaveLength(0);
  });

  it('without a terminal, sends the document without --type, and warns: the upload fields are not shown', async () => {
    const result = await svc(['documents', 'upload', file('passport.pdf', PDF)]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Warning: sent without --type: there is no terminal to ask for it');
    expect([...(await formOf(server.requests[0]!)).keys()]).toEqual(['file']);
  });

  it('sends a kind of document outside the enum openapi.yaml assumes', async () => {
    const result = await svc(['documents', 'upload', file('visa.pdf', PDF), '--type', 'previous_visa']);
    expect(result.code, result.stderr).toBe(0);
    expect((await formOf(server.requests[0]!)).get('type')).toBe('previous_visa');
  });

  it('checks the applicant id before sending', async () => {
    const result = await svc(['documents', 'upload', file('passport.pdf', PDF), '--type', 'passport', '--applicant', 'ana']);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(result.stderr).toContain('applicant_id "ana" must be an identifier starting with app_ (spec part 2) (field applicant_id)');
    expect(server.requests).toHaveLength(0);
  });

  it('takes a 202 answer that wraps the document in data (JSON:API), and shows the fields it has', async () => {
    const { id, ...attributes } = { id: 'doc_9', type: 'passport', status: 'received', red_flags: [], pages: 2 };
    answer = (_request, response) => json(response, 202, { data: { type: 'documents', id, attributes } });
    const result = await svc(['documents', 'upload', file('passport.pdf', PDF), '--type', 'passport', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ id, ...attributes });
    const human = await svc(['documents', 'upload', file('passport.pdf', PDF), '--type', 'passport']);
    expect(human.stdout).toBe('id\tdoc_9\ntype\tpassport\nstatus\treceived\n');
  });

  it('never retries the upload', async () => {
    answer = (_request, response) => apiError(response, 503, 'service_unavailable', 'try later', { 'retry-after': '0' });
    const result = await svc(['documents', 'upload', file('passport.pdf', PDF), '--type', 'passport', '--retries', '3']);
    expect(result.code).toBe(ExitCode.server);
    expect(server.requests).toHaveLength(1);
  });

  it('reports the service refusing the file (413) as invalid input', async () => {
    answer = (_request, response) => apiError(response, 413, 'file_too_large', 'The file exceeds the 10 MiB limit.');
    const result = await svc(['documents', 'upload', file('passport.pdf', PDF), '--type', 'passport']);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(result.stderr).toContain('file_too_large');
  });
});

describe('svc documents upload against the sandbox', () => {
  let sandbox: InProcessSandbox;
  let applicant: Applicant;
  beforeAll(async () => {
    sandbox = await startSandboxInProcess();
    applicant = await createApplicant(sandbox);
  });
  afterAll(() => sandbox.stop());

  function inSandbox(args: string[]) {
    return svcInProcess(args, { env: sandbox.env });
  }

  it('uploads a passport whose MRZ the sandbox reads and checks', async () => {
    const { line1, line2 } = buildMrz({
      document_number: ERIKA.passport_number,
      nationality: ERIKA.nationality,
      surname: ERIKA.surname,
      given_names: ERIKA.given_names,
      date_of_birth: ERIKA.date_of_birth,
      expiry_date: ERIKA.passport_expiry,
      sex: 'F',
    });
    const passportFile = join(sandbox.env.HOME!, 'passport.txt');
    writeFileSync(passportFile, `${line1}\n${line2}\n`);
    const uploaded = parsed<Document>(await inSandbox(['documents', 'upload', passportFile, '--type', 'passport', '--applicant', applicant.id, '--json']));
    expect(uploaded.status).toBe('processing');
    await expect.poll(async () => parsed<Document>(await inSandbox(['documents', 'get', uploaded.id, '--json'])).status, { timeout: HANG_MS }).toBe('analysed');
    const analysed = parsed<Document>(await inSandbox(['documents', 'get', uploaded.id, '--json']));
    expect(analysed.extracted).toMatchObject({ document_number: 'C01X00T47', nationality: 'AT', check_digits_valid: true });
    expect(analysed.red_flags).toEqual([]);
  });

  it('rejects a damaged image after the upload, and keeps why', async () => {
    const truncated = join(sandbox.env.HOME!, 'scan.png');
    writeFileSync(truncated, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]));
    const uploaded = parsed<Document>(await inSandbox(['documents', 'upload', truncated, '--type', 'bank_statement', '--json']));
    await expect.poll(async () => parsed<Document>(await inSandbox(['documents', 'get', uploaded.id, '--json'])).status, { timeout: HANG_MS }).toBe('rejected');
    expect(parsed<Document>(await inSandbox(['documents', 'get', uploaded.id, '--json'])).rejection?.code).toBe('unreadable');
  });
});

describe('multipart framing', () => {
  it('frames fields and a file part exactly, leaving out undefined fields', async () => {
    const body = encodeMultipart(
      { type: 'passport', applicant_id: undefined, file: { filename: 'a.txt', contentType: 'text/plain', bytes: Buffer.from('hi\r\n') } },
      'XyZ',
    );
    expect(Buffer.from(await body.arrayBuffer()).toString()).toBe(
      '--XyZ\r\nContent-Disposition: form-data; name="type"\r\n\r\npassport\r\n' +
        '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhi\r\n\r\n' +
        '--XyZ--\r\n',
    );
  });

  it('percent-encodes quotes and line breaks in a file name as browsers do, so that it round-trips', async () => {
    const name = 'my "scan"\r\n€.png';
    const body = encodeMultipart({ file: { filename: name, contentType: 'image/png', bytes: PNG } }, 'b0und');
    expect(Buffer.from(await body.arrayBuffer()).toString()).toContain('filename="my %22scan%22%0D%0A€.png"\r\n');
    const form = await new Response(body, { headers: { 'content-type': 'multipart/form-data; boundary=b0und' } }).formData();
    const part = form.get('file') as File;
    expect(part.name).toBe(name);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(PNG);
  });
});
