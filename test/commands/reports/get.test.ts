/**
 * `svc reports get` in the test's process, off a terminal: the breakdown as tab-separated lines for
 * scripts, the shapes the specification does not show, and --web where the system has no opener.
 * How it is drawn at a terminal is a binary test: test/e2e/report-view.test.ts.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../../src/api/types.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { type InProcessSandbox, startSandboxInProcess } from '../../helpers/sandbox.js';
import type { TestServer } from '../../helpers/server.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { sandboxReport, startOtherService } from './fixtures.js';

const KEY = 'svc_test_reportview0123456789abcdefgh';

let sandbox: InProcessSandbox;
let report: Report;
let other: TestServer;

beforeAll(async () => {
  sandbox = await startSandboxInProcess({ log: undefined });
  report = await sandboxReport(sandbox.env);
  other = await startOtherService();
});
afterAll(async () => {
  await sandbox.stop();
  await other.close();
});

const otherEnv = () => isolatedEnv({ SVC_BASE_URL: other.url, SVC_API_KEY: KEY, SVC_RETRIES: '0' });

describe('svc reports get, piped', () => {
  it('keeps piped output as tab-separated lines, for scripts', async () => {
    const piped = await svcInProcess(['reports', 'get', report.id], { env: sandbox.env });
    expect(piped.stdout).toContain(`risk score\t${report.risk_score}\nscore band\t${report.score_band}\n`);
    expect(piped.stdout).toContain('criterion\tscore\tweight\tweighted\tdetail\n');
    expect(piped.stdout).not.toMatch(/[█░]/);
  });

  it('shows the rest of a report whose criteria or recommendations come in shapes the specification does not show', async () => {
    const piped = await svcInProcess(['reports', 'get', 'rep_odd2'], { env: otherEnv() });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toContain('risk score\t12\n');
    expect(piped.stdout).not.toContain('criterion\t');
    expect(piped.stdout).toContain('Recommendations\n\n  • 3\n  • Apply early');
  });
});

describe('svc reports get --web', () => {
  it('prints the path where the system has no opener, and --json keeps stdout to the report', async () => {
    const env = isolatedEnv();
    const empty = join(env.HOME!, 'empty-bin');
    mkdirSync(empty);
    const result = await svcInProcess(['reports', 'get', report.id, '--web', '--json'], { env: { ...sandbox.env, PATH: empty } });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: report.id });
    const path = /^Wrote (.+\.html) \(no xdg-open here to open it: open it in a browser\)$/m.exec(result.stderr)?.[1];
    expect(readFileSync(path!, 'utf8')).toContain(report.id);
  });
});
