import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Applicant, Report } from '../../../src/api/types.js';
import { ExitCode } from '../../../src/core/errors.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import { createApplicant, parsed, REPORT_FLAGS } from '../../helpers/sandbox-cli.js';
import { svcInProcess } from '../../helpers/in-process.js';

let sandbox: InProcessSandbox;
let applicant: Applicant;
beforeAll(async () => {
  sandbox = await startSandboxInProcess();
  applicant = await createApplicant(sandbox);
});
afterAll(() => sandbox.stop());

function svc(args: string[], extra: Record<string, string> = {}) {
  return svcInProcess(args, { env: { ...sandbox.env, ...extra } });
}

describe('svc sandbox keys', () => {
  it('redacts the keys unless --reveal is given', async () => {
    const keys = await svc(['sandbox', 'keys', '--data-dir', sandbox.dataDir]);
    expect(keys.code).toBe(0);
    for (const secret of Object.values(sandbox.keys)) expect(keys.stdout + keys.stderr).not.toContain(secret);
    for (const role of ['test', 'read_only', 'ip_locked', 'admin', 'other_workspace', 'webhook_secret']) expect(keys.stdout).toContain(role);
  });
});

describe("the sandbox's keys through the CLI: the rules of part 5", () => {
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

  it('gives the same result for the same inputs with a test key', async () => {
    // One after the other: two commands in one process never overlap (test/helpers/in-process.ts).
    const a = parsed<Report>(await svc(['reports', 'create', '--applicant', applicant.id, ...REPORT_FLAGS, '--wait', '--json']));
    const b = parsed<Report>(await svc(['reports', 'create', '--applicant', applicant.id, ...REPORT_FLAGS, '--wait', '--json']));
    const essence = ({ risk_score, score_band, criteria, recommendations }: Report) => ({ risk_score, score_band, criteria, recommendations });
    expect(essence(a)).toEqual(essence(b));
  });
});
