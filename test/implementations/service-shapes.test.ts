/**
 * `documents upload` and `reports list` against implementations that chose their own upload shape
 * and their own paging where the specification says "not shown": run in the test's process as a user
 * would run them, against a real server on 127.0.0.1.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { type Choices, type OtherImplementation, startOtherImplementation } from '../helpers/other-implementation.js';
import { svcInProcess } from '../helpers/in-process.js';
import { isolatedEnv } from '../helpers/svc.js';

const KEY = 'svc_test_otherimplementation0123456789ab';
/** A PDF's first bytes, then bytes that are not UTF-8: a text round trip would change them. */
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n%\xE2\xE3\xCF\xD3\n', 'latin1'), Buffer.from([0, 255, 254, 13, 10, 128, 1, 2])]);

let implementation: OtherImplementation | undefined;
afterEach(async () => {
  await implementation?.close();
  implementation = undefined;
});

async function against(choices: Partial<Choices>) {
  implementation = await startOtherImplementation(choices);
  const env = isolatedEnv({ SVC_BASE_URL: implementation.url, SVC_API_KEY: KEY, SVC_RETRIES: '0' });
  const file = join(env.HOME!, 'passport.pdf');
  writeFileSync(file, PDF);
  return { server: implementation, file, svc: (args: string[]) => svcInProcess(args, { env }) };
}

function sent(server: OtherImplementation): string[] {
  return server.requests.map((request) => `${request.method} ${request.path}`);
}

describe('documents upload in the shape of the service', () => {
  it('multipart with the file part "upload" and the kind field "kind": refused in the sandbox\'s shape, taken with --file-field and --type-field', async () => {
    const { server, file, svc } = await against({ upload: 'multipart' });
    const sandboxShape = await svc(['documents', 'upload', file, '--type', 'passport', '--applicant', 'app_1']);
    expect(sandboxShape.code).toBe(ExitCode.invalidInput);
    expect(sandboxShape.stderr).toContain('422 invalid_upload: the form needs a file part named upload');

    const result = await svc([
      'documents',
      'upload',
      file,
      '--type',
      'passport',
      '--applicant',
      'app_1',
      '--file-field',
      'upload',
      '--type-field',
      'kind',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: server.documents[0]!.id, type: 'passport', size: PDF.length });
    expect(server.documents).toHaveLength(1);
    expect(server.documents[0]).toMatchObject({ kind: 'passport', applicantId: 'app_1', fileName: 'passport.pdf', contentType: 'application/pdf' });
    expect(server.documents[0]!.fields).toEqual({ kind: 'passport', applicant_id: 'app_1' });
    expect(server.documents[0]!.bytes.equals(PDF)).toBe(true);
  });

  it('takes the shape from the profile, set once; a flag overrides its setting', async () => {
    const { server, file, svc } = await against({ upload: 'multipart' });
    for (const [name, value] of [
      ['upload_file_field', 'upload'],
      ['upload_type_field', 'kind'],
      ['upload_fields', '{"channel": "ops"}'],
    ]) {
      const set = await svc(['config', 'set', name!, value!]);
      expect(set.code, set.stderr).toBe(0);
    }
    const listed = await svc(['config', 'list', '--json']);
    expect(JSON.parse(listed.stdout).profiles.default).toEqual({ upload_file_field: 'upload', upload_type_field: 'kind', upload_fields: '{"channel":"ops"}' });

    const result = await svc(['documents', 'upload', file, '--type', 'passport', '--field', 'source=cli', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.documents[0]!.fields).toEqual({ kind: 'passport', channel: 'ops', source: 'cli' });
    expect(server.documents[0]!.bytes.equals(PDF)).toBe(true);

    const overridden = await svc(['documents', 'upload', file, '--type', 'passport', '--file-field', 'file']);
    expect(overridden.code).toBe(ExitCode.invalidInput);
    expect(overridden.stderr).toContain('the form needs a file part named upload');
    expect(server.documents).toHaveLength(1);
  });

  it('JSON with the file in base64, the field names chosen and the file name from a placeholder', async () => {
    const { server, file, svc } = await against({ upload: 'json' });
    const result = await svc([
      'documents',
      'upload',
      file,
      '--type',
      'passport',
      '--applicant',
      'app_7',
      '--encoding',
      'json',
      '--type-field',
      'kind',
      '--file-field',
      'content',
      '--field',
      'file_name={{file_name}}',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests.at(-1)!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(server.requests.at(-1)!.body)).toEqual({
      kind: 'passport',
      applicant_id: 'app_7',
      file_name: 'passport.pdf',
      content: PDF.toString('base64'),
    });
    expect(server.documents[0]!.bytes.equals(PDF)).toBe(true);
  });

  it('the raw file as the body, with its media type; a kind or a field, which it cannot carry, is refused before sending', async () => {
    const { server, file, svc } = await against({ upload: 'raw' });
    const result = await svc(['documents', 'upload', file, '--encoding', 'raw', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.documents[0]).toMatchObject({ contentType: 'application/pdf' });
    expect(server.documents[0]!.bytes.equals(PDF)).toBe(true);
    expect(result.stderr).toBe('');

    const withType = await svc(['documents', 'upload', file, '--encoding', 'raw', '--type', 'passport']);
    expect(withType.code).toBe(ExitCode.usage);
    expect(withType.stderr).toContain('--type cannot be sent: a raw upload sends the file as the body, and no query parameter or header holds {{type}}');
    expect(withType.stderr).toContain('--query type={{type}}');
    const withField = await svc(['documents', 'upload', file, '--encoding', 'raw', '--field', 'channel=ops']);
    expect(withField.code).toBe(ExitCode.usage);
    expect(withField.stderr).toContain('the field channel (--field) cannot be sent');
    const withName = await svc(['documents', 'upload', file, '--encoding', 'raw', '--file-field', 'upload']);
    expect(withName.code).toBe(ExitCode.usage);
    expect(withName.stderr).toContain('--file-field names a field, and a raw upload has none');
    expect(server.documents).toHaveLength(1);
  });

  it('the raw file with its kind and applicant in the query string: refused as a form or JSON (415), taken with --query, a header beside', async () => {
    const { server, file, svc } = await against({ upload: 'query' });
    for (const encoding of ['multipart', 'json']) {
      const refused = await svc(['documents', 'upload', file, '--type', 'passport', '--applicant', 'app_1', '--encoding', encoding]);
      expect(refused.code, encoding).toBe(ExitCode.invalidInput);
      expect(refused.stderr).toContain('415');
    }

    const literal = await svc(['documents', 'upload', file, '--encoding', 'raw', '--query', 'type=passport', '--query', 'applicant_id=app_1', '--json']);
    expect(literal.code, literal.stderr).toBe(0);
    expect(JSON.parse(literal.stdout)).toMatchObject({ id: server.documents[0]!.id, type: 'passport' });
    expect(server.requests.at(-1)!.path).toBe('/v1/documents?type=passport&applicant_id=app_1');
    expect(server.documents[0]).toMatchObject({ kind: 'passport', applicantId: 'app_1', contentType: 'application/pdf' });
    expect(server.documents[0]!.bytes.equals(PDF)).toBe(true);

    // --type and --applicant go where a placeholder holds them; a header goes beside.
    const placed = await svc([
      'documents',
      'upload',
      file,
      '--type',
      'passport',
      '--applicant',
      'app_2 &x=1',
      '--encoding',
      'raw',
      '--query',
      'type={{type}}',
      '--query',
      'applicant_id={{applicant_id}}',
      '--header',
      'X-Channel=ops',
    ]);
    expect(placed.code, placed.stderr).toBe(0);
    expect(server.requests.at(-1)!.path).toBe('/v1/documents?type=passport&applicant_id=app_2%20%26x%3D1');
    expect(server.requests.at(-1)!.headers['x-channel']).toBe('ops');
    expect(server.documents[1]).toMatchObject({ kind: 'passport', applicantId: 'app_2 &x=1' });
  });

  it('takes the query parameters and headers of a raw upload from the profile', async () => {
    const { server, file, svc } = await against({ upload: 'query' });
    for (const [name, value] of [
      ['upload_encoding', 'raw'],
      ['upload_query', '{"type": "{{type}}", "applicant_id": "{{applicant_id}}"}'],
      ['upload_headers', '{"X-Channel": "ops"}'],
    ]) {
      const set = await svc(['config', 'set', name!, value!]);
      expect(set.code, set.stderr).toBe(0);
    }
    const listed = await svc(['config', 'list', '--json']);
    expect(JSON.parse(listed.stdout).profiles.default).toEqual({
      upload_encoding: 'raw',
      upload_query: '{"type":"{{type}}","applicant_id":"{{applicant_id}}"}',
      upload_headers: '{"x-channel":"ops"}',
    });

    const result = await svc(['documents', 'upload', file, '--type', 'passport', '--applicant', 'app_3', '--header', 'x-channel=cli', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests.at(-1)!.path).toBe('/v1/documents?type=passport&applicant_id=app_3');
    expect(server.requests.at(-1)!.headers['x-channel']).toBe('cli');
    expect(server.documents[0]).toMatchObject({ kind: 'passport', applicantId: 'app_3' });
  });

  it('refuses a shape that cannot be meant, naming the flag or the setting, before sending', async () => {
    const { server, file, svc } = await against({ upload: 'multipart' });
    const cases: Array<[string[], number, string]> = [
      [['--field', 'channel'], ExitCode.usage, '--field channel is not name=value'],
      [['--field', 'note={{holder}}'], ExitCode.usage, 'the field note from --field holds {{holder}}, no placeholder svc knows'],
      [['--field', 'type=passport'], ExitCode.usage, 'the field type (--field) is the kind field (the default)'],
      [['--type-field', 'file'], ExitCode.usage, 'the kind field (--type-field) and the file part (the default) are both named file'],
      [['--encoding', 'xml'], ExitCode.usage, 'Expected --encoding=xml to be one of: multipart, json, raw'],
      [['--query', 'type'], ExitCode.usage, '--query type is not name=value'],
      [['--header', 'x kind=passport'], ExitCode.usage, 'the header x kind from --header is not a header name'],
      [['--header', 'authorization=Bearer other'], ExitCode.usage, 'the header authorization from --header carries the key, which svc sets'],
      [['--header', 'content-type=text/plain'], ExitCode.usage, "the header content-type (--header) is the multipart form's own"],
    ];
    for (const [flags, code, message] of cases) {
      const result = await svc(['documents', 'upload', file, '--type', 'passport', ...flags]);
      expect(result.code, flags.join(' ')).toBe(code);
      expect(result.stderr).toContain(message);
    }
    const badSetting = await svc(['config', 'set', 'upload_encoding', 'xml']);
    expect(badSetting.code).toBe(ExitCode.config);
    expect(badSetting.stderr).toContain('xml from the command line is no upload encoding');
    const badFields = await svc(['config', 'set', 'upload_fields', 'channel=ops']);
    expect(badFields.code).toBe(ExitCode.config);
    expect(badFields.stderr).toContain('upload_fields from the command line is not a JSON object of strings');
    const badHeaders = await svc(['config', 'set', 'upload_headers', '{"x-kind": "{{kind}}"}']);
    expect(badHeaders.code).toBe(ExitCode.config);
    expect(badHeaders.stderr).toContain('the header x-kind from the command line holds {{kind}}, no placeholder svc knows');
    expect(sent(server)).toEqual([]);
  });
});

describe('reports list one page at a time, by what the answer offers', () => {
  it('a next cursor: says to pass --cursor, and --cursor reads the next page', async () => {
    const { server, svc } = await against({ list: 'stripe', paging: 'cursor', pageSize: 2 });
    const ids = [1, 2, 3, 4, 5].map(() => server.addReport());
    const first = await svc(['reports', 'list', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const page = JSON.parse(first.stdout);
    expect(page).toMatchObject({ has_more: true, data: [{ id: ids[0] }, { id: ids[1] }], next_page: { how: 'next_cursor', args: ['--cursor', 'Mg'] } });
    expect(page.next_page.url).toBe(`${server.url}/v1/reports?cursor=Mg`);

    const second = await svc(['reports', 'list', ...page.next_page.args]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(ids[2]);
    expect(second.stdout).toContain(ids[3]);
    expect(second.stdout).not.toContain(ids[0]);
    expect(second.stderr).toContain('More reports follow: the next page with --cursor NA (by next_cursor), or all of them with --all.');

    const rest = await svc(['reports', 'list', '--cursor', 'Mg', '--all', '--json']);
    expect(rest.code, rest.stderr).toBe(0);
    expect(JSON.parse(rest.stdout)).toMatchObject({ has_more: false, data: ids.slice(2).map((id) => ({ id })) });
    expect(sent(server)).toEqual(['GET /v1/reports', 'GET /v1/reports?cursor=Mg', 'GET /v1/reports?cursor=Mg', 'GET /v1/reports?cursor=NA']);
  });

  it.each([
    ['a Link header', { list: 'array', paging: 'link' }, '/v1/reports?page=2'],
    ['links.next', { list: 'jsonapi', paging: 'links_next' }, '/v1/reports?page[after]=rep_000002'],
    ['a next URL', { list: 'results', paging: 'next_url' }, '/v1/reports?offset=2'],
  ] as Array<[string, Partial<Choices>, string]>)('%s: says to pass --page-url, which reads the next page', async (_how, choices, nextPath) => {
    const { server, svc } = await against({ ...choices, pageSize: 2 });
    const ids = [1, 2, 3].map(() => server.addReport());
    const first = JSON.parse((await svc(['reports', 'list', '--json'])).stdout);
    expect(first.next_page.args).toEqual(['--page-url', nextPath]);
    const second = await svc(['reports', 'list', ...first.next_page.args, '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ has_more: false, data: [{ id: ids[2] }] });
    expect(JSON.parse(second.stdout).next_page).toBeUndefined();
  });

  it('the people output quotes a --page-url the shell would split', async () => {
    const { server, svc } = await against({ list: 'jsonapi', paging: 'links_next', pageSize: 1 });
    server.addReport();
    server.addReport();
    const result = await svc(['reports', 'list']);
    expect(result.stderr).toContain("the next page with --page-url '/v1/reports?page[after]=rep_000001' (by links.next)");
  });

  it('refuses a page URL on another origin, which would carry the key there, and one at another path', async () => {
    const { server, svc } = await against({ list: 'results', paging: 'next_url' });
    const elsewhere = await svc(['reports', 'list', '--page-url', 'https://collector.example/v1/reports?offset=2']);
    expect(elsewhere.code).toBe(ExitCode.usage);
    expect(elsewhere.stderr).toContain(`--page-url is on https://collector.example, not on ${server.url} where the API is: svc sends the key only there`);
    const otherPath = await svc(['reports', 'list', '--page-url', '/v1/keys?offset=2']);
    expect(otherPath.code).toBe(ExitCode.usage);
    expect(otherPath.stderr).toContain('--page-url is at /v1/keys, not at the list /v1/reports');
    expect(sent(server)).toEqual([]);
  });

  it('says so when the service ignores --starting-after, instead of showing the first page again', async () => {
    // It pages by cursor, and takes starting_after without a word, ignoring it.
    const { server, svc } = await against({ list: 'stripe', paging: 'cursor', pageSize: 2, ignoredParameters: ['starting_after'] });
    const ids = [1, 2, 3].map(() => server.addReport());
    const ignored = await svc(['reports', 'list', '--starting-after', ids[1]!, '--json']);
    expect(ignored.code).toBe(ExitCode.server);
    expect(JSON.parse(ignored.stdout).error).toMatchObject({ code: 'start_ignored' });
    expect(JSON.parse(ignored.stdout).error.message).toContain(
      `does not start at --starting-after ${ids[1]}: the page holds ${ids[1]}, the report the list was to start after, so the service ignored it`,
    );
    const people = await svc(['reports', 'list', '--starting-after', ids[1]!]);
    expect(people.code).toBe(ExitCode.server);
    expect(people.stdout).toBe('');
  });

  it('says so when the service ignores the cursor: the page after it is the page itself', async () => {
    const { server, svc } = await against({ list: 'stripe', paging: 'cursor', pageSize: 2, ignoredParameters: ['cursor'] });
    [1, 2, 3].map(() => server.addReport());
    for (const args of [
      ['--cursor', 'Mg'],
      ['--cursor', 'Mg', '--all'],
      ['--page-url', '/v1/reports?cursor=Mg'],
    ]) {
      const result = await svc(['reports', 'list', ...args]);
      expect(result.code, args.join(' ')).toBe(ExitCode.server);
      expect(result.stderr).toContain(`does not start at ${args.slice(0, 2).join(' ')}: the page after it is the page itself, so the service ignored it`);
    }
  });
});
