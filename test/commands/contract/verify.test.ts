/**
 * `svc contract verify` in the test's process: a --fast run against the sandbox (started in this
 * process too), what it skips without an input, and its usage errors and exit codes. The strict run
 * that waits out the real 30 s redelivery stays a binary test (test/conformance/sandbox.test.ts).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../../src/conformance/catalogue.js';
import { ExitCode } from '../../../src/core/errors.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { startKeylessImplementation } from '../../helpers/keyless-implementation.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { freePort, json, startServer } from '../../helpers/server.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { makeCertificate } from '../../helpers/tls.js';
import { steppingClock } from '../../helpers/clock.js';
import { startMutatingImplementation } from '../../helpers/mutating-implementation.js';

const SECRET = 'whsec_contractkit0123456789abcdefghijklmnop';
const SIGNING_SECRET = 'whsec_signaturelevels0123456789abcdefghi';

const sandboxes: InProcessSandbox[] = [];
afterAll(async () => {
  for (const sandbox of sandboxes) await sandbox.stop();
});

async function sandboxDelivering(): Promise<{ sandbox: InProcessSandbox; port: number }> {
  const port = await freePort();
  const sandbox = await startSandboxInProcess({ webhookUrls: [`http://127.0.0.1:${port}/`], webhookSecret: SECRET, log: undefined });
  sandboxes.push(sandbox);
  return { sandbox, port };
}

/** The kit's environment: every key in a variable, none on argv. */
function kitEnv(sandbox: InProcessSandbox): Record<string, string> {
  return isolatedEnv({
    SVC_API_KEY: sandbox.keys.test,
    SVC_ADMIN_KEY: sandbox.keys.admin,
    SVC_READ_ONLY_KEY: sandbox.keys.read_only,
    SVC_IP_LOCKED_KEY: sandbox.keys.ip_locked,
    SVC_OTHER_WORKSPACE_KEY: sandbox.keys.other_workspace,
    SVC_OTHER_WORKSPACE_ADMIN_KEY: sandbox.keys.other_workspace_admin,
    SVC_WEBHOOK_SECRET: SECRET,
  });
}

describe('svc contract verify against the sandbox', () => {
  it('with --fast, for people: a table per part, every spec check passing', async () => {
    const { sandbox, port } = await sandboxDelivering();
    const result = await svcInProcess(
      ['contract', 'verify', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--webhook-port', String(port), '--fast'],
      {
        env: kitEnv(sandbox),
      },
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('\n\nPart 4: Endpoints\n');
    expect(result.stdout).toMatch(/^pass\treports\.create\tspec\tPOST \/v1\/reports answers 2xx/m);
    expect(result.stdout).toMatch(/^skip\tevents\.redelivery\tspec\t--fast skips it/m);
    // The part of "every response" that --fast did not observe is named as skipped, never passed with a note.
    expect(result.stdout).toMatch(/^skip\tlimits\.remaining-header-429\tspec\t--fast skips it/m);
    expect(result.stdout).toMatch(/^pass\tlimits\.remaining-header-errors\tspec\t/m);
    // The upload's encoding is not shown: at level spec it is checked in the encoding the user gives.
    expect(result.stdout).toMatch(/^skip\tdocuments\.upload\tspec\tneeds --fixtures with a "document" entry/m);
    expect(result.stdout).not.toMatch(/^FAIL/m);
    expect(result.stdout).not.toContain('strict.');
    // Skipped: the upload, what --fast skips, and the generated checks the Pro plan's window leaves no room for (which depends on where the window ends).
    const skipped = (result.stdout.match(/^skip\t\S+\t.*$/gm) ?? []).filter((line) => !line.startsWith('skip\tgenerated.'));
    expect(skipped.map((line) => line.split('\t')[1]).sort()).toEqual([
      'documents.upload',
      'events.redelivery',
      'events.redelivery-4xx',
      'events.redelivery-timeout',
      'limits.remaining-header-429',
    ]);
    for (const line of result.stdout.match(/^skip\tgenerated\..*$/gm) ?? [])
      expect(line).toMatch(/^skip\tgenerated\.[\w-]+\tspec\tno room for generated requests: /);
    expect(result.stdout).toMatch(/^pass\tgenerated\.credentials\tspec\t/m);
    expect(result.stdout).toMatch(/conforms at level spec: \d+ passed, 0 failed, \d+ skipped \(/);
    expect(result.stdout).toMatch(
      /^Generated checks: seed (\d+) \(--seed \1 generates the same inputs and sequences again\), \d+ requests of the \d+ allowed$/m,
    );
  });

  it('skips, never passes, a check whose input was not given; warns about keys on argv and never prints them', async () => {
    const { sandbox } = await sandboxDelivering();
    const result = await svcInProcess(
      ['contract', 'verify', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--api-key', sandbox.keys.test, '--fast', '--json'],
      { env: isolatedEnv() },
    );
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout);
    const byId = Object.fromEntries(output.checks.map((check: { id: string }) => [check.id, check]));
    for (const check of CATALOGUE.filter((entry) => entry.level === 'spec' && entry.needs.length > 0)) {
      expect(byId[check.id].status, check.id).toBe('skipped');
    }
    expect(byId['auth.read-only-can-read'].detail).toBe("needs --read-only-key (or SVC_READ_ONLY_KEY, or the profile's read_only_key)");
    expect(byId['events.envelope'].detail).toMatch(/^needs --webhook-port/);
    expect(byId['reports.get'].status).toBe('passed');
    expect(output.skipped).toBe(CATALOGUE.filter((entry) => entry.level === 'spec' && entry.needs.length > 0).length);
    expect(result.stderr).toContain('a secret given with --api-key is visible to other local users in the process list; prefer SVC_API_KEY');
    expect(result.stderr + result.stdout).not.toContain(sandbox.keys.test);
  });
});

interface JsonCheck {
  id: string;
  status: string;
  detail: string;
}

/** The checks of a --json run, by id. */
function checksOf(stdout: string): Record<string, JsonCheck> {
  return Object.fromEntries((JSON.parse(stdout).checks as JsonCheck[]).map((check) => [check.id, check]));
}

const REVOCATION_CHECKS = ['auth.revocation-needs-admin', 'auth.workspace-admin', 'auth.revocation-immediate', 'keys.revoke', 'keys.id-prefix'];

/**
 * Issue 42 item 1: a key to revoke given to every run (a secret of the CI) is spent by the first run
 * that revokes it. Where the implementation makes keys, the kit makes its own each run and leaves
 * the given one alone; where it does not, the next run finds the key spent: a precondition not met.
 */
describe('svc contract verify: the key it revokes, run after run', () => {
  it('makes its own key where the implementation makes keys, and leaves the key of --revocable-key-id untouched, run after run', async () => {
    const { sandbox } = await sandboxDelivering();
    const made = await sandbox.fetch('/v1/keys', {
      method: 'POST',
      key: sandbox.keys.admin,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'made in the dashboard' }),
    });
    const dashboard = (await made.json()) as { id: string; secret: string };
    const env = isolatedEnv({ ...kitEnv(sandbox), SVC_REVOCABLE_KEY: dashboard.secret });
    const args = ['contract', 'verify', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--fast', '--json'];
    const ids = new Set<string>();
    for (const run of [1, 2]) {
      const result = await svcInProcess([...args, '--revocable-key-id', dashboard.id, '--only', 'auth.*,keys.*'], { env });
      expect(result.code, `run ${run}: ${result.stdout}`).toBe(0);
      const checks = checksOf(result.stdout);
      for (const id of REVOCATION_CHECKS.filter((check) => check !== 'keys.id-prefix')) {
        expect(checks[id], `run ${run}: ${id}`).toMatchObject({
          status: 'passed',
          detail: expect.stringMatching(new RegExp(`^on key_\\w+, a key the kit made for this run; ${dashboard.id} of --revocable-key-id was left untouched$`)),
        });
      }
      ids.add(/^on (key_\w+)/.exec(checks['auth.revocation-immediate']!.detail)![1]!);
      expect(result.stdout + result.stderr).not.toContain(dashboard.secret);
    }
    // A key of each run's own, and the given one still working.
    expect(ids.size).toBe(2);
    expect(ids.has(dashboard.id)).toBe(false);
    expect((await sandbox.fetch('/v1/reports', { key: dashboard.secret })).status).toBe(200);
  });

  it('skips, never fails, the checks that revoke a given key that an earlier run spent, naming it and what to give instead', async () => {
    // An implementation with no key API: the key of the dashboard is the only key the kit can revoke.
    const implementation = await startKeylessImplementation();
    try {
      const dashboard = implementation.makeKey('test');
      const env = isolatedEnv({
        SVC_API_KEY: implementation.makeKey('test').secret,
        SVC_ADMIN_KEY: implementation.makeKey('admin').secret,
        SVC_OTHER_WORKSPACE_ADMIN_KEY: implementation.makeKey('admin', 'ws_other').secret,
        SVC_REVOCABLE_KEY: dashboard.secret,
      });
      const args = [
        'contract',
        'verify',
        '--base-url',
        implementation.url,
        '--revocable-key-id',
        dashboard.id,
        '--only',
        REVOCATION_CHECKS.join(','),
        '--json',
      ];
      const first = await svcInProcess(args, { env });
      expect(first.code, first.stdout).toBe(0);
      for (const id of REVOCATION_CHECKS) expect(checksOf(first.stdout)[id]?.status, id).toBe('passed');
      expect(implementation.isRevoked(dashboard.id)).toBe(true);

      const second = await svcInProcess(args, { env });
      expect(second.code, second.stdout).toBe(0);
      const checks = checksOf(second.stdout);
      for (const id of REVOCATION_CHECKS) {
        expect(checks[id], id).toMatchObject({
          status: 'skipped',
          detail: expect.stringMatching(
            new RegExp(
              `^the key to revoke, ${dashboard.id} of --revocable-key-id, is not in the state the check needs: GET /v1/reports with it answered 401 .*invalid_key.*; the implementation makes no key through POST /v1/keys \\(POST /v1/keys answered 404 .*\\), so give each run a key of the dashboard of its own, made for it$`,
            ),
          ),
        });
      }
      expect(second.stdout + second.stderr).not.toContain(dashboard.secret);
      // Revoked once, by the first run.
      expect(implementation.deletions().filter((id) => id === dashboard.id)).toHaveLength(1);
    } finally {
      await implementation.close();
    }
  });
});

/**
 * Issue 42 item 2: on a workspace others use, the kit exhausts no rate-limit window unless asked,
 * can be held to a rate of its own, and leaves out the checks it is told to.
 */
describe('svc contract verify: a good citizen of a shared workspace', () => {
  it('provokes no 429 unless asked: the check is skipped, saying how to run it', async () => {
    const { sandbox } = await sandboxDelivering();
    const result = await svcInProcess(['contract', 'verify', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--only', 'limits.*', '--json'], {
      env: kitEnv(sandbox),
    });
    expect(result.code, result.stdout).toBe(0);
    const checks = checksOf(result.stdout);
    expect(checks['limits.remaining-header-429']).toMatchObject({
      status: 'skipped',
      detail:
        "not asked for: give --provoke-429, or --rate-limit-key (or SVC_RATE_LIMIT_KEY, or the profile's rate_limit_key) with a key of a workspace no one else uses: the kit spends the key's whole rate-limit window on purpose, and every other client of that workspace is refused until the window ends",
    });
    expect(checks['limits.remaining-header-errors']?.status).toBe('passed');
    // Not one request refused: the workspace's window is as the other checks left it.
    expect(result.stderr).not.toContain('429');
  });

  it('provokes a 429 with the test key when asked (--provoke-429), or with the key given for it alone (--rate-limit-key), whose window it spends instead', async () => {
    const sandbox = await startSandboxInProcess({ plan: 'free', log: undefined });
    sandboxes.push(sandbox);
    const args = ['contract', 'verify', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--only', 'limits.remaining-header-429', '--json'];
    // The window the kit waits out passes on the test's clock.
    const withKey = await svcInProcess(args, {
      env: isolatedEnv({ SVC_API_KEY: sandbox.keys.test, SVC_RATE_LIMIT_KEY: sandbox.keys.other_workspace }),
      clock: steppingClock(),
    });
    expect(withKey.code, withKey.stdout).toBe(0);
    expect(checksOf(withKey.stdout)['limits.remaining-header-429']).toMatchObject({
      status: 'passed',
      detail: expect.stringMatching(/^a 429 provoked with the rate-limit key: \d+ requests in [\d.]+ s, then \d+ s waited for the window to pass$/),
    });
    expect(withKey.stdout + withKey.stderr).not.toContain(sandbox.keys.other_workspace);
    // The test key's workspace was left its window: of the Free plan's 10, the kit's one preflight.
    const after = await sandbox.fetch('/v1/reports');
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-remaining')).toBe('8');

    const asked = await svcInProcess([...args, '--provoke-429'], { env: isolatedEnv({ SVC_API_KEY: sandbox.keys.test }), clock: steppingClock() });
    expect(asked.code, asked.stdout).toBe(0);
    expect(checksOf(asked.stdout)['limits.remaining-header-429']?.detail).toMatch(/^a 429 provoked with the test key: /);
    expect((await sandbox.fetch('/v1/reports')).status).toBe(429);

    const fast = await svcInProcess([...args, '--provoke-429', '--fast'], { env: isolatedEnv({ SVC_API_KEY: sandbox.keys.test }) });
    expect(fast.code).toBe(ExitCode.usage);
  });

  it("sends no more than --rate-limit allows, the Pact verifier's requests included, on its clock", async () => {
    const { sandbox } = await sandboxDelivering();
    const clock = steppingClock();
    let requests = 0;
    const state = { keys: sandbox.keys, created: new Map(), revoked: new Set<string>(), applicants: new Map(), secret: SECRET };
    // The sandbox behind a front that counts what reaches it.
    const front = await startMutatingImplementation(sandbox, { name: 'counted', change: 'none', breaks: [], request: () => void requests++ }, state);
    try {
      const result = await svcInProcess(
        ['contract', 'verify', '--base-url', front.baseUrl, '--ca-cert', front.caCertPath, '--only', 'reports.get', '--rate-limit', '3/s', '--json'],
        { env: kitEnv(sandbox), clock },
      );
      expect(result.code, result.stdout).toBe(0);
      // Decided by Pact: the verifier's GET came through the kit's forwarder.
      expect(checksOf(result.stdout)['reports.get']).toMatchObject({ status: 'passed' });
      expect(JSON.parse(result.stdout).checks[0].verified_by).toBe('pact');
      // Three a second: the kit's clock moved a second for each three requests after the first three, and only for them.
      expect(requests).toBeGreaterThan(3);
      expect(clock.slept.reduce((sum, ms) => sum + ms, 0)).toBe(Math.floor((requests - 1) / 3) * 1000);
    } finally {
      await front.close();
    }
  });

  it('leaves out the checks --exclude names, as --only leaves out those it does not name, and refuses an --exclude that names no check', async () => {
    const { sandbox } = await sandboxDelivering();
    const args = ['contract', 'verify', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--fast', '--json'];
    const result = await svcInProcess([...args, '--exclude', 'events.*, reports.get,limits.*'], { env: kitEnv(sandbox) });
    expect(result.code, result.stdout).toBe(0);
    const ids = (JSON.parse(result.stdout).checks as JsonCheck[]).map((check) => check.id);
    expect(ids).toEqual(
      CATALOGUE.filter(
        (check) => check.level === 'spec' && !check.id.startsWith('events.') && !check.id.startsWith('limits.') && check.id !== 'reports.get',
      ).map((check) => check.id),
    );
    const both = await svcInProcess([...args, '--only', 'auth.*', '--exclude', 'auth.read-only-*'], { env: kitEnv(sandbox) });
    expect((JSON.parse(both.stdout).checks as JsonCheck[]).map((check) => check.id)).toEqual(
      CATALOGUE.filter((check) => check.level === 'spec' && check.id.startsWith('auth.') && !check.id.startsWith('auth.read-only-')).map((check) => check.id),
    );

    const unknown = await svcInProcess([...args, '--exclude', 'auth.nothing,reports.get'], { env: kitEnv(sandbox) });
    expect(unknown.code).toBe(ExitCode.usage);
    expect(JSON.parse(unknown.stdout).error.message).toBe('--exclude names no check: auth.nothing');
    const none = await svcInProcess([...args, '--only', 'auth.missing-header', '--exclude', 'auth.*'], { env: kitEnv(sandbox) });
    expect(none.code).toBe(ExitCode.usage);
    expect(JSON.parse(none.stdout).error).toMatchObject({ code: 'no_check_selected', message: '--only less --exclude selects no check at level spec' });
  });

  it('refuses a --rate-limit that is no rate', async () => {
    const result = await svcInProcess(['contract', 'verify', '--base-url', 'https://127.0.0.1:9', '--rate-limit', '60/week', '--json'], {
      env: isolatedEnv({ SVC_API_KEY: 'svc_test_usage0123456789abcdefghijklmno' }),
    });
    expect(result.code).toBe(ExitCode.usage);
    expect(result.stdout + result.stderr).toContain(
      '60/week is not a request rate: give a number of requests (1 or more) per second, minute, hour or day, as 2/s, 60/m or 1000/h',
    );
  });
});

describe('svc contract verify: usage', () => {
  const env = () => isolatedEnv({ SVC_API_KEY: 'svc_test_usage0123456789abcdefghijklmno' });

  it('refuses a key that is not a svc_test_ key (the kit creates reports)', async () => {
    const result = await svcInProcess(['contract', 'verify', '--base-url', 'https://127.0.0.1:9', '--json'], {
      env: isolatedEnv({ SVC_API_KEY: 'svc_live_usage_0123456789_abcdefghijklmno' }),
    });
    expect(result.code).toBe(ExitCode.config);
    expect(JSON.parse(result.stdout).error.code).toBe('not_a_test_key');
  });

  it('refuses an --only that names no check, and strict checks at level spec', async () => {
    const unknown = await svcInProcess(['contract', 'verify', '--base-url', 'https://127.0.0.1:9', '--only', 'auth.nothing', '--json'], { env: env() });
    expect(unknown.code).toBe(ExitCode.usage);
    expect(JSON.parse(unknown.stdout).error.message).toBe('--only names no check: auth.nothing');
    const strict = await svcInProcess(['contract', 'verify', '--base-url', 'https://127.0.0.1:9', '--only', 'strict.*', '--json'], { env: env() });
    expect(strict.code).toBe(ExitCode.usage);
    expect(JSON.parse(strict.stdout).error.hint).toBe('strict checks need --level strict');
  });

  it('reports an unreachable implementation as a network error, not as failed checks', async () => {
    const result = await svcInProcess(['contract', 'verify', '--base-url', `https://127.0.0.1:${await freePort()}`, '--json'], { env: env() });
    expect(result.code).toBe(ExitCode.network);
  });

  it("names the base URL's path where it names the implementation: its banner and a network error", async () => {
    const certificate = await makeCertificate();
    const server = await startServer((_request, response) => json(response, 200, {}), certificate);
    const dir = mkdtempSync(join(tmpdir(), 'svc-prefixed-'));
    writeFileSync(join(dir, 'ca.pem'), certificate.cert);
    const result = await svcInProcess(
      ['contract', 'verify', '--base-url', `${server.url}/visa-api`, '--ca-cert', join(dir, 'ca.pem'), '--only', 'auth.missing-header', '--json'],
      { env: env() },
    );
    await server.close();
    expect(result.stderr).toContain(`checks at level spec against ${server.url}/visa-api\n`);
    expect(server.requests.map((request) => request.path)).toContain('/visa-api/v1/reports');

    const unreachable = `https://127.0.0.1:${await freePort()}/visa-api`;
    const refused = await svcInProcess(['contract', 'verify', '--base-url', unreachable, '--json'], { env: env() });
    expect(refused.code).toBe(ExitCode.network);
    const { error } = JSON.parse(refused.stdout) as { error: { message: string } };
    expect(error.message).toMatch(new RegExp(`^cannot reach ${unreachable.replace(/[.]/g, '\\.')}: `));
    expect(refused.stdout + refused.stderr).not.toMatch(/GET https:\/\/127\.0\.0\.1:\d+\/v1\//);
  });

  it('exits 17 when a check fails, with the reason (expected, got, request) in the JSON, the table and the JUnit report', async () => {
    const certificate = await makeCertificate();
    const server = await startServer((_request, response) => json(response, 200, {}), certificate);
    const dir = mkdtempSync(join(tmpdir(), 'svc-failing-'));
    writeFileSync(join(dir, 'ca.pem'), certificate.cert);
    const args = [
      'contract',
      'verify',
      '--base-url',
      server.url,
      '--ca-cert',
      join(dir, 'ca.pem'),
      '--only',
      'auth.missing-header,auth.unknown-key',
      '--junit',
      join(dir, 'report.xml'),
    ];
    try {
      const result = await svcInProcess([...args, '--json'], { env: env() });
      expect(result.code).toBe(ExitCode.nonConformant);
      const output = JSON.parse(result.stdout);
      expect(output).toMatchObject({ level: 'spec', passed: 0, failed: 2, skipped: 0 });
      expect(output.checks[0]).toEqual({
        id: 'auth.missing-header',
        title: 'a request without Authorization gets 401 with the code unauthorized',
        spec: '7',
        level: 'spec',
        status: 'failed',
        detail: 'expected 401 with the code unauthorized; got 200 {} (GET /v1/reports without a valid key)',
        findings: ['expected 401 with the code unauthorized; got 200 {} (GET /v1/reports without a valid key)'],
        verified_by: 'probe',
      });
      const xml = readFileSync(join(dir, 'report.xml'), 'utf8');
      expect(xml).toContain('<testsuite name="Part 7: Errors" tests="2" failures="2" errors="0" skipped="0"');
      expect(xml).toContain(
        '<failure message="expected 401 with the code unauthorized; got 200 {} (GET /v1/reports without a valid key)" type="nonconformant">',
      );
      const people = await svcInProcess(args, { env: env() });
      expect(people.code).toBe(ExitCode.nonConformant);
      expect(people.stdout).toContain('FAIL\tauth.unknown-key\tspec\texpected 401 with the code invalid_key; got 200 {} (GET /v1/reports without a valid key)');
      expect(people.stdout).toContain('does not conform at level spec: 0 passed, 2 failed, 0 skipped');
    } finally {
      await server.close();
    }
  });

  it("says what to do when --webhook-port is taken: another pipeline's kit on the runner needs a port and a subscription of its own", async () => {
    const taken = await startServer((_request, response) => json(response, 200, {}));
    try {
      const port = new URL(taken.url).port;
      const result = await svcInProcess(['contract', 'verify', '--base-url', 'https://127.0.0.1:9', '--webhook-port', port, '--json'], { env: env() });
      expect(result.code).toBe(ExitCode.config);
      const { error } = JSON.parse(result.stdout);
      expect(error.message).toBe(`cannot listen on 127.0.0.1:${port} for webhooks: EADDRINUSE`);
      expect(error.hint).toContain("another pipeline's kit on the same runner? Give each pipeline its own --webhook-port");
      expect(error.hint).toContain('a subscription to each');
    } finally {
      await taken.close();
    }
  });

  it('--insecure and --ca-cert exclude each other', async () => {
    const result = await svcInProcess(['contract', 'verify', '--base-url', 'https://127.0.0.1:9', '--insecure', '--ca-cert', 'x.pem'], { env: env() });
    expect(result.code).toBe(ExitCode.usage);
  });
});

/**
 * Against the sandbox told to sign v1 in base64: level spec takes it and says so; level strict wants
 * openapi.yaml's hex and says that what came is a valid HMAC-SHA256 in base64; with
 * --signature-encoding hex its deliveries do not verify, so they are noise, as an invalid
 * signature's are: the event checks are inconclusive, never passed.
 */
describe('svc contract verify against an implementation that signs v1 in base64', () => {
  interface Check {
    id: string;
    status: string;
    detail: string;
  }

  it('passes it at level spec naming the encoding, fails it at level strict for the encoding only, and passes nothing with --signature-encoding hex', async () => {
    const port = await freePort();
    const sandbox = await startSandboxInProcess({
      webhookUrls: [`http://127.0.0.1:${port}/`],
      webhookSecret: SIGNING_SECRET,
      signatureEncoding: 'base64',
      log: undefined,
    });
    sandboxes.push(sandbox);
    const env = isolatedEnv({ SVC_API_KEY: sandbox.keys.test, SVC_WEBHOOK_SECRET: SIGNING_SECRET });
    const kit = async (...args: string[]) => {
      const result = await svcInProcess(
        ['contract', 'verify', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--webhook-port', String(port), '--fast', '--json', ...args],
        { env },
      );
      return { code: result.code, checks: Object.fromEntries((JSON.parse(result.stdout).checks as Check[]).map((check) => [check.id, check])) };
    };

    const strict = await kit(
      '--level',
      'strict',
      '--only',
      'events.report-completed-fields,events.signature-valid,strict.signature-header,strict.signature-valid',
    );
    expect(strict.code).toBe(ExitCode.nonConformant);
    expect(strict.checks['events.signature-valid']).toMatchObject({
      status: 'passed',
      detail: expect.stringMatching(/^\d+ deliver(y|ies) signed with HMAC-SHA256 over <t>\.<raw body>, in base64$/),
    });
    expect(strict.checks['strict.signature-header']).toMatchObject({ status: 'failed' });
    expect(strict.checks['strict.signature-valid']).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(
        /^expected HMAC-SHA256 with the webhook secret over '<t>\.<raw body>', hex, within 300 s; got HMAC-SHA256 over <t>\.<raw body>, in base64, which level spec takes/,
      ),
    });

    const pinned = await kit('--signature-encoding', 'hex', '--only', 'events.report-completed-fields,events.signature-valid');
    expect(pinned.code).toBe(ExitCode.inconclusive);
    expect(pinned.checks['events.signature-valid']).toMatchObject({ status: 'inconclusive' });
    expect(pinned.checks['events.report-completed-fields']).toMatchObject({ status: 'inconclusive' });
  });
});
