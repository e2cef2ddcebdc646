/**
 * The resource commands against implementations that made other choices than openapi.yaml where
 * the specification says "not shown": their own applicant fields and visa types, other list
 * shapes and paging, other success statuses, 410 for a deleted report, `+00:00` timestamps, other
 * error bodies, fields svc does not know and none of those it assumes. Run in the test's process as a
 * user would run them, against a real server.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { type Choices, type OtherImplementation, startOtherImplementation } from '../helpers/other-implementation.js';
import { type Handler, json, startServer, type TestServer } from '../helpers/server.js';
import { svcInProcess } from '../helpers/in-process.js';
import { isolatedEnv } from '../helpers/svc.js';

const KEY = 'svc_test_otherimplementation0123456789ab';
const APPLICANT = { first_name: 'Ana', family_name: 'Silva', passport: { number: 'X1234567', expires: '2031-05-01' } };

const IMPLEMENTATIONS: Array<[string, Partial<Choices>]> = [
  [
    'Stripe-style lists, 201, a deletion body of its own, 404, Z, nested errors',
    { list: 'stripe', paging: 'has_more', createStatus: 201, deleteStatus: 200, deleteBody: 'json', deletedStatus: 404, utc: 'Z', errors: 'nested' },
  ],
  [
    'a bare array paged by Link header, 200, 204, 410, +00:00, flat errors',
    { list: 'array', paging: 'link', createStatus: 200, deleteStatus: 204, deleteBody: 'none', deletedStatus: 410, utc: '+00:00', errors: 'flat' },
  ],
  [
    'JSON:API lists and resources, 202, 202 with a body, 410, +00:00, RFC 9457 problem details',
    {
      list: 'jsonapi',
      paging: 'links_next',
      wrapResources: true,
      createStatus: 202,
      deleteStatus: 202,
      deleteBody: 'json',
      deletedStatus: 410,
      utc: '+00:00',
      errors: 'problem',
    },
  ],
  [
    '{results, count, next}, 201, 200 with text, 404, +00:00, JSON:API errors',
    { list: 'results', paging: 'next_url', createStatus: 201, deleteStatus: 200, deleteBody: 'text', deletedStatus: 404, utc: '+00:00', errors: 'jsonapi' },
  ],
];

function svcAgainst(implementation: OtherImplementation, env: Record<string, string>) {
  return (args: string[]) => svcInProcess(args, { env: { ...env, SVC_BASE_URL: implementation.url, SVC_API_KEY: KEY, SVC_RETRIES: '0' } });
}

function sent(implementation: OtherImplementation): string[] {
  return implementation.requests.map((request) => `${request.method} ${request.path}`);
}

describe.each(IMPLEMENTATIONS)('against an implementation with %s', (_name, choices) => {
  let implementation: OtherImplementation;
  let env: Record<string, string>;
  let svc: ReturnType<typeof svcAgainst>;
  let applicantId: string;
  let reportId: string;

  beforeAll(async () => {
    implementation = await startOtherImplementation(choices);
    env = isolatedEnv();
    svc = svcAgainst(implementation, env);
  });
  afterAll(() => implementation.close());

  it('applicants create --file sends the applicant fields of the service as they are, and shows its answer', async () => {
    const file = join(env.HOME!, 'applicant.json');
    writeFileSync(file, JSON.stringify(APPLICANT));
    const result = await svc(['applicants', 'create', '--file', file, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(implementation.requests.at(-1)!.body)).toEqual(APPLICANT);
    const applicant = JSON.parse(result.stdout);
    expect(applicant).toMatchObject({ ...APPLICANT, id: expect.stringMatching(/^app_/) });
    applicantId = applicant.id;

    const human = await svc(['applicants', 'create', '--file', file]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^id\tapp_\w+$/m);
    expect(human.stdout).not.toMatch(/\t$/m);
  });

  it("reports create sends a visa type of the service's own and shows the report as answered, its own fields in --json only", async () => {
    const request = { applicant_id: applicantId, destination: 'NZ', visa_type: 'work_holiday', purpose: 'A year of work and travel' };
    const result = await svc([
      'reports',
      'create',
      '--applicant',
      applicantId,
      '--destination',
      'NZ',
      '--visa-type',
      'work_holiday',
      '--purpose',
      request.purpose,
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(implementation.requests.at(-1)!.body)).toEqual(request);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ ...request, id: expect.stringMatching(/^rep_/), status: 'pending', engine: 'other-2.4' });
    reportId = report.id;

    const human = await svc(['reports', 'get', reportId]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`id\t${reportId}`);
    expect(human.stdout).toContain('status\tanalysing');
    expect(human.stdout).toContain('visa type\twork_holiday');
    expect(human.stdout).toContain(`created\t2026-01-05T09:30:0`);
    expect(human.stdout).not.toContain('engine');
    expect(human.stdout).not.toMatch(/^(finished|risk score|score band|error)\b/m);
    expect(human.stdout).not.toMatch(/\t$/m);
    expect(human.stdout).toContain(`svc reports wait ${reportId}`);
  });

  it("shows the service's own error code and message for a visa type it does not offer (exit 6)", async () => {
    const result = await svc(['reports', 'create', '--applicant', applicantId, '--destination', 'NZ', '--visa-type', 'tourist', '--purpose', 'Holiday']);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(result.stderr).toContain('422 visa_type_not_offered: visa type tourist is not offered; use one of work_holiday, digital_nomad');
  });

  it('reports wait polls until completed and shows the breakdown, whatever the range of the score', async () => {
    const result = await svc(['reports', 'wait', reportId]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('status\tcompleted');
    expect(result.stdout).toContain('risk score\t412');
    expect(result.stdout).toContain('score band\tmoderate');
    expect(result.stdout).toMatch(/^funds\t30\t75%\t22\.5\t$/m);
    expect(result.stdout).toContain('Bring proof of onward travel.');
    expect(result.stdout).not.toContain('/ 100');
  });

  it('reports list shows the reports wherever the answer holds them, and sends no query parameter unasked', async () => {
    implementation.addReport();
    implementation.addReport();
    const before = implementation.requests.length;
    const page = await svc(['reports', 'list', '--json']);
    expect(page.code, page.stderr).toBe(0);
    expect(JSON.parse(page.stdout)).toMatchObject({ object: 'list', has_more: true, data: [{ id: reportId, engine: 'other-2.4' }, {}] });
    expect(sent(implementation).slice(before)).toEqual(['GET /v1/reports']);
    expect(page.stderr).toContain('More reports follow');

    const all = await svc(['reports', 'list', '--all', '--json']);
    expect(all.code, all.stderr).toBe(0);
    const listed = JSON.parse(all.stdout);
    expect(listed.data).toHaveLength(3);
    expect(listed.data[0]).toMatchObject({ id: reportId, visa_type: 'work_holiday', status: 'completed' });
    expect(listed.has_more).toBe(false);

    const human = await svc(['reports', 'list']);
    expect(human.stdout.split('\n')[0]).toBe('id\tstatus\tapplicant\tdestination\tvisa type\tscore\tband\tcreated');
    expect(human.stdout).toContain(`${reportId}\tcompleted\t${applicantId}\tNZ\twork_holiday\t412\tmoderate\t`);
  });

  it('reports delete takes its success status and body, and prints the id and deleted: true with --json', async () => {
    const result = await svc(['reports', 'delete', reportId, '--yes', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: reportId, deleted: true });
    expect(sent(implementation).at(-1)).toBe(`DELETE /v1/reports/${reportId}`);
  });

  it(`a read of the deleted report is not found (exit 5), with the service's code`, async () => {
    const result = await svc(['reports', 'get', reportId, '--json']);
    expect(result.code).toBe(ExitCode.notFound);
    expect(JSON.parse(result.stdout).error).toMatchObject({ kind: 'notFound', code: 'report_gone', status: choices.deletedStatus });
    expect(JSON.parse(result.stdout).error.message).toContain(`report ${reportId} was deleted`);
  });
});

describe('reports list --all follows the paging the answer offers', () => {
  it.each([
    ['a next cursor', { list: 'stripe', paging: 'cursor' }, ['GET /v1/reports', 'GET /v1/reports?cursor=Mg', 'GET /v1/reports?cursor=NA']],
    ['page numbers', { list: 'jsonapi', paging: 'page_numbers' }, ['GET /v1/reports', 'GET /v1/reports?page=2', 'GET /v1/reports?page=3']],
    [
      'has_more and the last id',
      { list: 'stripe', paging: 'has_more' },
      ['GET /v1/reports', 'GET /v1/reports?starting_after=rep_000002', 'GET /v1/reports?starting_after=rep_000004'],
    ],
  ] as Array<[string, Partial<Choices>, string[]]>)('by %s, to the end', async (_how, choices, requests) => {
    const implementation = await startOtherImplementation(choices);
    try {
      const ids = [1, 2, 3, 4, 5].map(() => implementation.addReport());
      const result = await svcAgainst(implementation, isolatedEnv())(['reports', 'list', '--all', '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ has_more: false, data: ids.map((id) => ({ id })) });
      expect(sent(implementation)).toEqual(requests);
      expect(result.stderr).toBe('');
    } finally {
      await implementation.close();
    }
  });

  it('stops at a next page already read, saying so', async () => {
    const implementation = await startOtherImplementation({ list: 'results', paging: 'loop' });
    try {
      implementation.addReport();
      const result = await svcAgainst(implementation, isolatedEnv())(['reports', 'list', '--all', '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ has_more: null, data: [{}], stopped: { reason: 'repeated_cursor' } });
      expect(result.stderr).toContain('Warning: stopped paging: page 1 leads to a page already read (by next), so more reports may follow');
      expect(sent(implementation)).toEqual(['GET /v1/reports']);
    } finally {
      await implementation.close();
    }
  });

  it('says when it cannot tell whether more reports follow', async () => {
    const implementation = await startOtherImplementation({ list: 'array', paging: 'none' });
    try {
      implementation.addReport();
      const svc = svcAgainst(implementation, isolatedEnv());
      const page = await svc(['reports', 'list', '--json']);
      expect(page.code, page.stderr).toBe(0);
      expect(JSON.parse(page.stdout)).toMatchObject({ has_more: null, data: [{}] });
      expect(page.stderr).toContain('svc cannot tell whether more reports follow: the answer shows no paging it recognises.');
      const all = await svc(['reports', 'list', '--all']);
      expect(all.code, all.stderr).toBe(0);
      expect(all.stderr).toContain('Warning: stopped paging: the answer shows no next page svc recognises, so more reports may follow');
    } finally {
      await implementation.close();
    }
  });

  it('sends the query parameters asked for, and shows the refusal of one the service does not take', async () => {
    const implementation = await startOtherImplementation({ list: 'jsonapi', paging: 'links_next', errors: 'problem' });
    try {
      const svc = svcAgainst(implementation, isolatedEnv());
      const filtered = await svc(['reports', 'list', '--limit', '1', '--status', 'completed', '--applicant', 'app_1']);
      expect(filtered.code, filtered.stderr).toBe(0);
      expect(sent(implementation)).toEqual(['GET /v1/reports?limit=1&status=completed&applicant_id=app_1']);
      const refused = await svc(['reports', 'list', '--starting-after', 'rep_1']);
      expect(refused.code).toBe(ExitCode.invalidInput);
      expect(refused.stderr).toContain('400 unknown_parameter: unknown query parameter starting_after');
    } finally {
      await implementation.close();
    }
  });
});

describe('answers svc cannot read', () => {
  let server: TestServer;
  let answer: Handler;
  beforeAll(async () => {
    server = await startServer((request, response, index) => answer(request, response, index));
  });
  afterAll(() => server.close());

  function svc(args: string[]) {
    return svcInProcess(args, { env: isolatedEnv({ SVC_BASE_URL: server.url, SVC_API_KEY: KEY, SVC_RETRIES: '0' }) });
  }

  it('names a list answer holding several arrays that could each be the reports (exit 9)', async () => {
    answer = (_request, response) => json(response, 200, { recent: [{ id: 'rep_1' }], archived: [{ id: 'rep_2' }] });
    const result = await svc(['reports', 'list']);
    expect(result.code).toBe(ExitCode.server);
    expect(result.stderr).toContain('GET /v1/reports answered with no list svc can read');
  });

  it('names an answer that is not JSON (exit 9)', async () => {
    answer = (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html>Sign in</html>');
    const result = await svc(['reports', 'get', 'rep_1']);
    expect(result.code).toBe(ExitCode.server);
    expect(result.stderr).toContain('GET /v1/reports/rep_1 answered 200 with a body that is not JSON (text/html)');
  });
});
