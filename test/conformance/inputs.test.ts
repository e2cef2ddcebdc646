/**
 * The kit's inputs through the real binary against the real sandbox: fixtures files (used, and
 * refused with the key at fault), a setup the implementation refuses (inconclusive, exit 18), and
 * the HTTPS receiver of --webhook-tls, whose certificate the implementation trusts once.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DOCUMENT_FILE_BYTES } from '../../src/conformance/fixtures.js';
import { samplePassportPdf } from '../../src/conformance/samples.js';
import { ExitCode } from '../../src/core/errors.js';
import { HANG_MS } from '../helpers/hang.js';
import { startOtherImplementation } from '../helpers/other-implementation.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { freePort } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

const SECRET = 'whsec_kitinputs0123456789abcdefghijklmnopq';

const sandboxes: RunningSandbox[] = [];
afterAll(async () => {
  for (const sandbox of sandboxes) await sandbox.stop();
});

async function sandbox(args: string[] = [], env = isolatedEnv()): Promise<RunningSandbox> {
  const started = await startSandboxProcess([...args, '--quiet'], env);
  sandboxes.push(started);
  return started;
}

function kitEnv(target: RunningSandbox, home: Record<string, string> = isolatedEnv()): Record<string, string> {
  return { ...home, SVC_API_KEY: target.keys.test, SVC_WEBHOOK_SECRET: SECRET };
}

function fixturesFile(env: Record<string, string>, name: string, content: string): string {
  const path = join(env.HOME!, name);
  writeFileSync(path, content);
  return path;
}

describe('--fixtures', () => {
  it('sends the report and the upload of the fixtures, and checks documents.upload at level spec in that encoding', async () => {
    const target = await sandbox();
    const env = kitEnv(target);
    // A report to the applicant's own country, which the sandbox fails (invalid_input): proof that the fixture's report was sent.
    const path = fixturesFile(
      env,
      'fixtures.yaml',
      'report:\n  destination: SE\n  visa_type: business\n  purpose: Meetings in Stockholm\ndocument:\n  encoding: multipart\n  fields: { type: passport, applicant_id: "{{applicant_id}}" }\n',
    );
    const result = await runSvc(
      [
        'contract',
        'verify',
        '--base-url',
        target.url,
        '--ca-cert',
        target.caCert,
        '--fixtures',
        path,
        '--fast',
        '--only',
        'reports.completes,documents.upload',
        '--json',
      ],
      { env },
    );
    const output = JSON.parse(result.stdout);
    const byId = Object.fromEntries(output.checks.map((check: { id: string }) => [check.id, check]));
    expect(byId['documents.upload'], result.stderr).toMatchObject({ status: 'passed' });
    expect(byId['reports.completes'].status).toBe('inconclusive');
    expect(byId['reports.completes'].detail).toMatch(/ended failed \(\{"code":"invalid_input".*give others in --fixtures/);
    expect(output.run.fixtures).toEqual({ applicant: false, report: true, document: true, document_encoding: 'multipart', failing_report: false });
    expect(result.code).toBe(ExitCode.inconclusive);
  });

  it.each([
    ['a key the kit does not know', '{"aplicant": {}}', /fixtures\.json: aplicant: is not a known field/],
    ['an encoding that is none', '{"document": {"encoding": "xml"}}', /document\.encoding: must be one of multipart, json, raw/],
    ['a json encoding without its body', '{"document": {"encoding": "json"}}', /document\.body: is required with the encoding json/],
    ['a key of another encoding', '{"document": {"encoding": "raw", "fields": {"type": "passport"}}}', /document\.fields: is not used with the encoding raw/],
    [
      'an unknown placeholder',
      '{"document": {"encoding": "json", "body": {"owner": "{{applicant}}"}}}',
      /document\.body\.owner: \{\{applicant\}\} is no placeholder the kit knows/,
    ],
    [
      'a placeholder outside document',
      '{"report": {"purpose": "{{file_name}}"}}',
      /report\.purpose: placeholders such as \{\{file_name\}\} are only taken in document/,
    ],
    ['a file that is not there', '{"document": {"file": "scan.pdf"}}', /document\.file: cannot read .*scan\.pdf \(ENOENT\)/],
    ['a report that is not an object', '{"report": "FR"}', /report: must be object/],
    ['a query parameter that is not a string', '{"document": {"encoding": "raw", "query": {"type": 1}}}', /document\.query\.type: must be string/],
    ['a key failing_report does not take', '{"failing_report": {"destination": "ZZ"}}', /failing_report\.destination: is not a known field/],
    ['an empty failing_report', '{"failing_report": {}}', /failing_report: is empty/],
    ['a failing_report report that is not an object', '{"failing_report": {"report": "ZZ"}}', /failing_report\.report: must be object/],
    ['a failing_report file that is not there', '{"failing_report": {"file": "expired.pdf"}}', /failing_report\.file: cannot read .*expired\.pdf \(ENOENT\)/],
    [
      'a placeholder in failing_report',
      '{"failing_report": {"applicant": {"given_names": "{{applicant_id}}"}}}',
      /failing_report\.applicant\.given_names: placeholders such as \{\{applicant_id\}\} are only taken in document/,
    ],
    [
      'a Content-Type of its own beside a multipart form',
      '{"document": {"encoding": "multipart", "headers": {"Content-Type": "text/plain"}}}',
      /document\.headers\.Content-Type: is the multipart form's own \(it carries the boundary\)/,
    ],
  ])('refuses %s with a usage error naming the key, before anything is sent', async (_name, content, message) => {
    const env = kitEnv({ keys: { test: 'svc_test_fixtures0123456789abcdefghijkl' } } as RunningSandbox);
    const path = fixturesFile(env, 'fixtures.json', content);
    const result = await runSvc(['contract', 'verify', '--base-url', 'https://127.0.0.1:9', '--fixtures', path, '--json'], { env });
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'invalid_fixtures' });
    expect(result.stderr).toMatch(message);
  });

  it('uploads with the query parameters and headers of document, to an implementation that takes the raw file and its kind in the query string', async () => {
    const implementation = await startOtherImplementation({ upload: 'query' });
    try {
      const env = kitEnv({ keys: { test: 'svc_test_fixtures0123456789abcdefghijkl' } } as RunningSandbox);
      const path = fixturesFile(
        env,
        'fixtures.yaml',
        [
          'applicant: { first_name: Anna, family_name: Eriksson, passport: L898902C3 }',
          'document:',
          '  encoding: raw',
          '  query: { type: passport, applicant_id: "{{applicant_id}}" }',
          '  headers: { x-file-name: "{{file_name}}" }',
        ].join('\n'),
      );
      const result = await runSvc(['contract', 'verify', '--base-url', implementation.url, '--fixtures', path, '--only', 'documents.upload', '--json'], {
        env,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).checks[0]).toMatchObject({ id: 'documents.upload', status: 'passed' });
      const upload = implementation.requests.find((request) => request.method === 'POST' && request.path.startsWith('/v1/documents'))!;
      expect(upload.path).toMatch(/^\/v1\/documents\?type=passport&applicant_id=app_\w+$/);
      expect(upload.headers).toMatchObject({ 'content-type': 'application/pdf', 'x-file-name': 'passport.pdf' });
      expect(implementation.documents[0]).toMatchObject({ kind: 'passport', applicantId: expect.stringMatching(/^app_/) });
    } finally {
      await implementation.close();
    }
  });

  it('refuses a YAML file that does not parse, naming the file', async () => {
    const env = kitEnv({ keys: { test: 'svc_test_fixtures0123456789abcdefghijkl' } } as RunningSandbox);
    const path = fixturesFile(env, 'fixtures.yaml', 'report: [destination: FR\n');
    const result = await runSvc(['contract', 'verify', '--base-url', 'https://127.0.0.1:9', '--fixtures', path], { env });
    expect(result.code).toBe(ExitCode.usage);
    expect(result.stderr).toContain(`${path} is not valid YAML`);
  });
});

describe('--fixtures document.file', () => {
  // A sandbox that logs each request it gets on stderr, to show that no document reached it.
  let target: RunningSandbox;
  beforeAll(async () => {
    target = await startSandboxProcess();
    sandboxes.push(target);
  });

  /** The sandbox's requests from the kit's run, read up to a request of the test's own, which its log shows after them. */
  async function requestsDuring(run: () => Promise<unknown>): Promise<string> {
    const from = target.stderr().length;
    await run();
    const marker = `/v1/reports/rep_marker${from}`;
    await target.fetch(marker);
    for (const deadline = Date.now() + HANG_MS; !target.stderr().includes(marker) && Date.now() < deadline;) await sleep(50);
    return target.stderr().slice(from, target.stderr().indexOf(marker));
  }

  /** A fixtures file in a directory of its own, beside a directory of other files, with what `prepare` puts there. */
  function fixturesIn(env: Record<string, string>, file: string, prepare: (dir: string, outside: string) => void = () => undefined): string {
    const dir = join(env.HOME!, 'fixtures');
    const outside = join(env.HOME!, 'elsewhere');
    mkdirSync(dir);
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'SVC_ADMIN_KEY=svc_admin_notforupload');
    prepare(dir, outside);
    writeFileSync(join(dir, 'fixtures.json'), JSON.stringify({ document: { encoding: 'multipart', file } }));
    return join(dir, 'fixtures.json');
  }

  it.each([
    [
      '/proc/self/environ',
      [],
      () => undefined,
      /document\.file: \/proc\/self\/environ \(\/proc\/\d+\/environ once links are resolved\) is outside \S+, the directory of the fixtures file/,
    ],
    ['/dev/zero', [], () => undefined, /document\.file: \/dev\/zero is outside \S+, the directory of the fixtures file/],
    [
      'passport.pdf',
      [],
      (dir: string, outside: string) => symlinkSync(join(outside, 'secret.txt'), join(dir, 'passport.pdf')),
      /document\.file: passport\.pdf \(\S+\/elsewhere\/secret\.txt once links are resolved\) is outside \S+\/fixtures, the directory of the fixtures file/,
    ],
    [
      '../elsewhere/secret.txt',
      [],
      () => undefined,
      /document\.file: \.\.\/elsewhere\/secret\.txt \(\S+\/elsewhere\/secret\.txt\) is outside \S+\/fixtures, the directory/,
    ],
    [
      'scan.pdf',
      [],
      (dir: string) => {
        writeFileSync(join(dir, 'scan.pdf'), '');
        truncateSync(join(dir, 'scan.pdf'), MAX_DOCUMENT_FILE_BYTES + 1);
      },
      /document\.file: \S+\/scan\.pdf is 33554433 bytes, over the kit's cap of 32 MiB \(33554432 bytes\) for an upload.*give a smaller scan/s,
    ],
    ['/dev/zero', ['--fixtures-allow-outside'], () => undefined, /document\.file: \/dev\/zero is a character device, not a regular file/],
    ['/proc/self/environ', ['--fixtures-allow-outside'], () => undefined, /document\.file: \/proc\/\d+\/environ is empty \(0 bytes as the system reports it\)/],
  ])('refuses %s %j with a usage error naming it, and uploads nothing', async (file, flags, prepare, message) => {
    const env = kitEnv(target);
    const path = fixturesIn(env, file, prepare);
    let result = { code: 0 as number | null, stdout: '', stderr: '' };
    const requests = await requestsDuring(async () => {
      result = await runSvc(
        ['contract', 'verify', '--base-url', target.url, '--ca-cert', target.caCert, '--fixtures', path, ...flags, '--only', 'documents.upload', '--json'],
        { env, killAfterMs: HANG_MS },
      );
    });
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'invalid_fixtures' });
    expect(result.stderr).toMatch(message);
    expect(requests).not.toContain('/v1/documents');
  });

  it('with --fixtures-allow-outside, uploads a regular file from another directory', async () => {
    const env = kitEnv(target);
    const path = fixturesIn(env, '../elsewhere/passport.pdf', (_dir, outside) => writeFileSync(join(outside, 'passport.pdf'), samplePassportPdf()));
    let result = { code: 0 as number | null, stdout: '', stderr: '' };
    const requests = await requestsDuring(async () => {
      result = await runSvc(
        [
          'contract',
          'verify',
          '--base-url',
          target.url,
          '--ca-cert',
          target.caCert,
          '--fixtures',
          path,
          '--fixtures-allow-outside',
          '--only',
          'documents.upload',
          '--json',
        ],
        { env },
      );
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).checks[0]).toMatchObject({ id: 'documents.upload', status: 'passed' });
    expect(requests).toMatch(/^POST \/v1\/documents 201/m);
  });

  it('holds failing_report.file to the same rules, naming it', async () => {
    const env = kitEnv(target);
    const path = fixturesIn(env, 'passport.pdf', (dir) => writeFileSync(join(dir, 'passport.pdf'), samplePassportPdf()));
    writeFileSync(path, JSON.stringify({ failing_report: { file: '../elsewhere/secret.txt' } }));
    let result = { code: 0 as number | null, stdout: '', stderr: '' };
    const requests = await requestsDuring(async () => {
      result = await runSvc(
        ['contract', 'verify', '--base-url', target.url, '--ca-cert', target.caCert, '--fixtures', path, '--only', 'events.report-failed', '--json'],
        { env, killAfterMs: HANG_MS },
      );
    });
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    expect(result.stderr).toMatch(/failing_report\.file: \.\.\/elsewhere\/secret\.txt \(\S+\/elsewhere\/secret\.txt\) is outside \S+\/fixtures, the directory/);
    expect(requests).not.toContain('/v1/');
  });
});

describe('a setup the implementation refuses', () => {
  it('makes the checks that need it inconclusive, not failed: exit 18, counted in --json, errors in JUnit', async () => {
    const target = await sandbox();
    const env = kitEnv(target);
    // The sandbox takes openapi.yaml's applicant fields only: an applicant of other fields is refused (422).
    const path = fixturesFile(env, 'fixtures.json', JSON.stringify({ applicant: { first_name: 'Anna', family_name: 'Eriksson' } }));
    const junit = join(env.HOME!, 'contract.xml');
    const result = await runSvc(
      ['contract', 'verify', '--base-url', target.url, '--ca-cert', target.caCert, '--fixtures', path, '--fast', '--json', '--junit', junit],
      { env },
    );
    const output = JSON.parse(result.stdout);
    expect(output.checks.filter((check: { status: string }) => check.status === 'failed')).toEqual([]);
    expect(result.code, result.stderr).toBe(ExitCode.inconclusive);
    expect(output).toMatchObject({ failed: 0, verdict: 'inconclusive' });
    const byId = Object.fromEntries(output.checks.map((check: { id: string }) => [check.id, check]));
    expect(byId['reports.get']).toMatchObject({ status: 'inconclusive' });
    expect(byId['reports.get'].detail).toContain('the kit could not create an applicant: POST /v1/applicants answered 422');
    expect(byId['reports.get'].detail).toContain('give a body the implementation takes as "applicant" in --fixtures');
    // What needs no applicant is still judged.
    expect(byId['auth.unknown-key'].status).toBe('passed');
    expect(byId['transport.https-only'].status).toBe('passed');
    expect(output.inconclusive).toBe(output.checks.filter((check: { status: string }) => check.status === 'inconclusive').length);
    expect(output.inconclusive).toBeGreaterThan(5);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain(`failures="0" errors="${output.inconclusive}"`);
    expect(xml).toMatch(/<error message="the kit could not create an applicant[^"]*" type="inconclusive">/);
  });
});

describe('--webhook-tls', () => {
  it('receives over HTTPS with a certificate the kit makes once and keeps: the implementation trusts it, and the run record names it', async () => {
    const home = isolatedEnv();
    const port = await freePort();
    // A first run makes the certificate and says where it is, for the implementation to trust.
    const plain = await sandbox();
    const first = await runSvc(
      [
        'contract',
        'verify',
        '--base-url',
        plain.url,
        '--ca-cert',
        plain.caCert,
        '--webhook-tls',
        '--webhook-port',
        String(port),
        '--only',
        'events.envelope',
        '--json',
      ],
      { env: kitEnv(plain, home) },
    );
    const certificate = /The receiver's certificate, for the implementation to trust: (\S+)/.exec(first.stderr)?.[1];
    expect(certificate, first.stderr).toBe(join(home.XDG_DATA_HOME!, 'svc', 'contract', 'webhook-tls', 'cert.pem'));
    expect(JSON.parse(first.stdout).run.webhook_receiver).toEqual({
      scheme: 'https',
      certificate,
      certificate_sha256: new X509Certificate(readFileSync(certificate!)).fingerprint256,
      authenticated: true,
      deliveries: 0,
      noise: 0,
      noise_reasons: {},
    });

    // An implementation that delivers only to HTTPS subscribers, trusting that certificate.
    const secure = await sandbox(
      ['--webhook-url', `https://127.0.0.1:${port}/`, '--webhook-secret', SECRET],
      isolatedEnv({ NODE_EXTRA_CA_CERTS: certificate! }),
    );
    const result = await runSvc(
      [
        'contract',
        'verify',
        '--base-url',
        secure.url,
        '--ca-cert',
        secure.caCert,
        '--webhook-tls',
        '--webhook-port',
        String(port),
        '--only',
        'events.*',
        '--fast',
        '--json',
      ],
      { env: kitEnv(secure, home) },
    );
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output.checks.filter((check: { status: string }) => check.status === 'failed')).toEqual([]);
    expect(output.checks.find((check: { id: string }) => check.id === 'events.envelope')).toMatchObject({ status: 'passed' });
    expect(output.run.webhook_receiver).toMatchObject({ scheme: 'https', certificate, authenticated: true, noise: 0 });
    // The same certificate as the first run: the implementation trusted it once.
    expect(readFileSync(certificate!, 'utf8')).toContain('-----BEGIN CERTIFICATE-----');
  });

  it('four kits started together on a new data directory make one certificate, the one each serves and the file holds', async () => {
    const home = isolatedEnv();
    const plain = await sandbox();
    const runs = await Promise.all(
      [0, 1, 2, 3].map(async () =>
        runSvc(
          [
            'contract',
            'verify',
            '--base-url',
            plain.url,
            '--ca-cert',
            plain.caCert,
            '--webhook-tls',
            '--webhook-port',
            String(await freePort()),
            '--only',
            'events.envelope',
            '--json',
          ],
          { env: kitEnv(plain, home) },
        ),
      ),
    );
    const dir = join(home.XDG_DATA_HOME!, 'svc', 'contract', 'webhook-tls');
    const certificate = new X509Certificate(readFileSync(join(dir, 'cert.pem')));
    expect(certificate.checkPrivateKey(createPrivateKey(readFileSync(join(dir, 'key.pem'))))).toBe(true);
    for (const run of runs) {
      expect(JSON.parse(run.stdout).run.webhook_receiver.certificate_sha256, run.stderr).toBe(certificate.fingerprint256);
    }
  });
});
