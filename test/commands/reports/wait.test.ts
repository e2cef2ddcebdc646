import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Applicant, Report } from '../../../src/api/types.js';
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

describe('svc reports wait against the sandbox', () => {
  it('reports wait follows a report to its end', async () => {
    const report = parsed<Report>(await svc(['reports', 'create', '--applicant', applicant.id, ...REPORT_FLAGS, '--json']));
    expect(report.status).toBe('queued');
    expect(parsed<Report>(await svc(['reports', 'wait', report.id, '--json'])).status).toBe('completed');
  });
});
