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

function svc(args: string[]) {
  return svcInProcess(args, { env: sandbox.env });
}

describe('svc reports delete against the sandbox', () => {
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
});
