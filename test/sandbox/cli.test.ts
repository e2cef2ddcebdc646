import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Applicant, Document, Report } from '../../src/api/types.js';
import { ExitCode } from '../../src/core/errors.js';
import { buildMrz } from '../../src/sandbox/mrz.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { HANG_MS } from '../helpers/hang.js';

let sandbox: RunningSandbox;
let applicant: Applicant;
let passportFile: string;

const REPORT_FLAGS = ['--destination', 'DE', '--visa-type', 'business', '--purpose', 'Trade fair and meetings with suppliers in Hanover'];

function svc(args: string[], extra: Record<string, string> = {}, input?: string) {
  return runSvc(args, { env: { ...sandbox.env, ...extra }, input });
}

function parsed<T>(result: { code: number | null; stdout: string; stderr: string }): T {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet']);
  const profile = join(sandbox.env.HOME!, 'profile.json');
  writeFileSync(
    profile,
    JSON.stringify({
      given_names: 'Erika',
      surname: 'Mustermann',
      date_of_birth: '1988-03-02',
      nationality: 'AT',
      passport_number: 'C01X00T47',
      passport_expiry: '2031-08-31',
    }),
  );
  applicant = parsed<Applicant>(await svc(['applicants', 'create', '--file', profile, '--monthly-income', '5200', '--currency', 'EUR', '--json']));
  const { line1, line2 } = buildMrz({
    document_number: 'C01X00T47',
    nationality: 'AT',
    surname: 'Mustermann',
    given_names: 'Erika',
    date_of_birth: '1988-03-02',
    expiry_date: '2031-08-31',
    sex: 'F',
  });
  passportFile = join(sandbox.env.HOME!, 'passport.txt');
  writeFileSync(passportFile, `${line1}\n${line2}\n`);
});
afterAll(() => sandbox.stop());

describe('the resource commands against the sandbox', () => {
  it('uploads a passport whose MRZ the sandbox reads and checks', async () => {
    const uploaded = parsed<Document>(await svc(['documents', 'upload', passportFile, '--type', 'passport', '--applicant', applicant.id, '--json']));
    expect(uploaded.status).toBe('processing');
    await expect.poll(async () => parsed<Document>(await svc(['documents', 'get', uploaded.id, '--json'])).status, { timeout: HANG_MS }).toBe('analysed');
    const analysed = parsed<Document>(await svc(['documents', 'get', uploaded.id, '--json']));
    expect(analysed.extracted).toMatchObject({ document_number: 'C01X00T47', nationality: 'AT', check_digits_valid: true });
    expect(analysed.red_flags).toEqual([]);
  });

  it('rejects a damaged image after the upload, and keeps why', async () => {
    const truncated = join(sandbox.env.HOME!, 'scan.png');
    writeFileSync(truncated, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]));
    const uploaded = parsed<Document>(await svc(['documents', 'upload', truncated, '--type', 'bank_statement', '--json']));
    await expect.poll(async () => parsed<Document>(await svc(['documents', 'get', uploaded.id, '--json'])).status, { timeout: HANG_MS }).toBe('rejected');
    expect(parsed<Document>(await svc(['documents', 'get', uploaded.id, '--json'])).rejection?.code).toBe('unreadable');
  });

  it('creates a report and waits for it; get, list and delete agree, and deletion is permanent', async () => {
    const report = parsed<Report>(await svc(['reports', 'create', '--applicant', applicant.id, ...REPORT_FLAGS, '--wait', '--json']));
    expect(report.status).toBe('completed');
    expect(parsed<Report>(await svc(['reports', 'get', report.id, '--json']))).toEqual(report);
    const human = await svc(['reports', 'get', report.id]);
    expect(human.stdout).toContain(`risk score\t${report.risk_score}\nscore band\t${report.score_band}`);
    for (const criterion of report.criteria!) expect(human.stdout).toContain(criterion.label);
    const listed = parsed<{ data: Report[] }>(await svc(['reports', 'list', '--applicant', applicant.id, '--all', '--json']));
    expect(listed.data.map((item) => item.id)).toContain(report.id);

    expect(parsed(await svc(['reports', 'delete', report.id, '--yes', '--json']))).toEqual({ id: report.id, object: 'report', deleted: true });
    expect((await svc(['reports', 'get', report.id])).code).toBe(ExitCode.notFound);
    const after = parsed<{ data: Report[] }>(await svc(['reports', 'list', '--applicant', applicant.id, '--all', '--json']));
    expect(after.data.map((item) => item.id)).not.toContain(report.id);
  });

  it('gives the same result for the same inputs with a test key', async () => {
    const [a, b] = await Promise.all(
      [0, 1].map(async () => parsed<Report>(await svc(['reports', 'create', '--applicant', applicant.id, ...REPORT_FLAGS, '--wait', '--json']))),
    );
    const essence = ({ risk_score, score_band, criteria, recommendations }: Report) => ({ risk_score, score_band, criteria, recommendations });
    expect(essence(a!)).toEqual(essence(b!));
  });

  it('reports wait follows a report to its end', async () => {
    const report = parsed<Report>(await svc(['reports', 'create', '--applicant', applicant.id, ...REPORT_FLAGS, '--json']));
    expect(report.status).toBe('queued');
    expect(parsed<Report>(await svc(['reports', 'wait', report.id, '--json'])).status).toBe('completed');
  });

  it('updates an applicant', async () => {
    const updated = parsed<Applicant>(await svc(['applicants', 'update', applicant.id, '--savings', '30000', '--json']));
    expect(updated).toMatchObject({ id: applicant.id, savings: 30_000, monthly_income: 5_200 });
    expect(parsed<Applicant>(await svc(['applicants', 'get', applicant.id, '--json']))).toEqual(updated);
  });
});

describe('the rules of part 5 through the CLI', () => {
  it('a read-only key lists reports and cannot create one (exit 4, forbidden)', async () => {
    expect((await svc(['reports', 'list'], { SVC_API_KEY: sandbox.keys.read_only })).code).toBe(0);
    const create = await svc(['reports', 'create', '--applicant', applicant.id, ...REPORT_FLAGS], { SVC_API_KEY: sandbox.keys.read_only });
    expect(create.code).toBe(ExitCode.permission);
    expect(create.stderr).toContain('forbidden');
  });

  it('an IP-locked key from this machine is refused (exit 4, ip_not_allowed)', async () => {
    const list = await svc(['reports', 'list'], { SVC_API_KEY: sandbox.keys.ip_locked });
    expect(list.code).toBe(ExitCode.permission);
    expect(list.stderr).toContain('ip_not_allowed');
  });

  it('an unknown key is refused (exit 3, invalid_key), and never printed', async () => {
    const key = 'svc_test_unknownkey000000000000000000000';
    const list = await svc(['reports', 'list'], { SVC_API_KEY: key });
    expect(list.code).toBe(ExitCode.auth);
    expect(list.stderr).toContain('invalid_key');
    expect(list.stdout + list.stderr).not.toContain(key);
  });

  it("another workspace's key does not see this workspace's report (exit 5)", async () => {
    const report = parsed<Report>(await svc(['reports', 'create', '--applicant', applicant.id, ...REPORT_FLAGS, '--json']));
    expect((await svc(['reports', 'get', report.id], { SVC_API_KEY: sandbox.keys.other_workspace })).code).toBe(ExitCode.notFound);
    const theirs = parsed<{ data: Report[] }>(await svc(['reports', 'list', '--all', '--json'], { SVC_API_KEY: sandbox.keys.other_workspace }));
    expect(theirs.data.map((item) => item.id)).not.toContain(report.id);
  });
});

describe('svc sandbox cert and keys', () => {
  it('prints the certificate path', async () => {
    const cert = await svc(['sandbox', 'cert', '--data-dir', sandbox.dataDir]);
    expect(cert.stdout.trim()).toBe(sandbox.caCert);
    expect(statSync(sandbox.caCert).isFile()).toBe(true);
  });

  it('redacts the keys unless --reveal is given', async () => {
    const keys = await svc(['sandbox', 'keys', '--data-dir', sandbox.dataDir]);
    expect(keys.code).toBe(0);
    for (const secret of Object.values(sandbox.keys)) expect(keys.stdout + keys.stderr).not.toContain(secret);
    for (const role of ['test', 'read_only', 'ip_locked', 'admin', 'other_workspace', 'webhook_secret']) expect(keys.stdout).toContain(role);
  });
});

describe('svc demo', () => {
  it('runs the whole path on a fresh machine and leaves nothing behind', async () => {
    const env = isolatedEnv();
    const scratch = join(env.HOME!, 'tmp');
    mkdirSync(scratch);
    const demo = await runSvc(['demo', '--json'], { env: { ...env, TMPDIR: scratch } });
    const report = parsed<Report>(demo);
    expect(report.status).toBe('completed');
    expect(demo.stderr).toMatch(/report\.completed evt_\w+ received, signature verified/);
    // Node's compile cache (bin/run.js) lives in the temporary directory too; it is not the demo's.
    expect(readdirSync(scratch).filter((name) => name !== 'node-compile-cache')).toEqual([]);
  });
});

describe('sandbox start on a port in use', () => {
  it('says so in words and exits 2, as webhooks listen does', async () => {
    const env = isolatedEnv();
    const result = await runSvc(['sandbox', 'start', '--port', String(sandbox.port), '--data-dir', join(env.HOME!, 'sandbox'), '--json'], {
      env,
      killAfterMs: HANG_MS,
    });
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'cannot_listen', message: `cannot listen on 127.0.0.1:${sandbox.port}: EADDRINUSE` });
    expect(result.stderr).toContain('choose another with --port');
    expect(result.stderr).not.toContain('Error: listen EADDRINUSE');
  });
});
