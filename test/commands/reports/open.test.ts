/**
 * `svc reports open` in the test's process, where the system has no opener: the page written (for
 * the sandbox's report, a hostile service's and one in shapes the specification does not show), its
 * --json, and an --output it cannot write. Handing the page to a real opener, and its rendering in
 * headless Chromium, are binary tests: test/e2e/report-view.test.ts.
 */
import { readFileSync } from 'node:fs';
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

describe('svc reports open, without an opener', () => {
  it('reports open --json gives the path of the page written, whether it was opened, and the report', async () => {
    const env = isolatedEnv();
    const output = join(env.HOME!, 'page.html');
    const result = await svcInProcess(['reports', 'open', report.id, '--output', output, '--json'], {
      env: { ...sandbox.env, PATH: join(env.HOME!, 'nowhere') },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ path: output, opened: false, report: expect.objectContaining({ id: report.id }) });
    expect(readFileSync(output, 'utf8')).toContain(report.id);
  });

  it('draws one bar per criterion it can read of a report in shapes the specification does not show', async () => {
    const env = otherEnv();
    const output = join(env.HOME!, 'odd.html');
    const page = await svcInProcess(['reports', 'open', 'rep_odd1', '--output', output], { env: { ...env, PATH: join(env.HOME!, 'nowhere') } });
    expect(page.code, page.stderr).toBe(0);
    expect((readFileSync(output, 'utf8').match(/<rect x="200"/g) ?? []).length).toBe(1);
  });

  it('escapes everything a hostile service answers, and draws no scale it cannot vouch for', async () => {
    const env = otherEnv();
    const output = join(env.HOME!, 'other.html');
    const result = await svcInProcess(['reports', 'open', 'rep_other1', '--output', output], { env: { ...env, PATH: join(env.HOME!, 'nowhere') } });
    expect(result.code, result.stderr).toBe(0);
    const html = readFileSync(output, 'utf8');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#60;/svg&#62;&#60;img src=x onerror=&#39;y&#39;&#62;&#38;');
    expect(html).not.toContain('<svg class="scale"');
    expect(html).toContain('Risk score <strong>640</strong>, band <span class="band" style="color:inherit">elevated</span>');
  });

  it('refuses an --output it cannot write, saying what to do', async () => {
    const result = await svcInProcess(['reports', 'open', report.id, '--output', '/nonexistent/dir/report.html'], {
      env: { ...sandbox.env, PATH: '/nonexistent' },
    });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('cannot write the page to /nonexistent/dir/report.html (ENOENT)');
    expect(result.stderr).toContain('give --output a file in a directory you can write to');
  });
});
