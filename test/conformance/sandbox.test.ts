/**
 * `svc contract verify` through the real binary against the real sandbox process: it passes --level
 * strict with every input given (the real 30 s redelivery included, on an unscaled sandbox), and the
 * run record, the JUnit report and the cleanup are what the kit promises. The --fast run, the skips
 * and the usage errors are in-process: test/commands/contract/verify.test.ts.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/conformance/catalogue.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { freePort } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

const SECRET = 'whsec_contractkit0123456789abcdefghijklmnop';
const root = new URL('../../', import.meta.url);
const sha256 = (path: string) =>
  createHash('sha256')
    .update(readFileSync(new URL(path, root)))
    .digest('hex');

const sandboxes: RunningSandbox[] = [];
afterAll(async () => {
  for (const sandbox of sandboxes) await sandbox.stop();
});

async function sandboxDelivering(): Promise<{ sandbox: RunningSandbox; port: number }> {
  const port = await freePort();
  const sandbox = await startSandboxProcess(['--webhook-url', `http://127.0.0.1:${port}/`, '--webhook-secret', SECRET, '--quiet'], isolatedEnv());
  sandboxes.push(sandbox);
  return { sandbox, port };
}

/** The kit's environment: every key in a variable, none on argv. */
function kitEnv(sandbox: RunningSandbox, extra: Record<string, string> = {}): Record<string, string> {
  return isolatedEnv({
    SVC_API_KEY: sandbox.keys.test,
    SVC_ADMIN_KEY: sandbox.keys.admin,
    SVC_READ_ONLY_KEY: sandbox.keys.read_only,
    SVC_IP_LOCKED_KEY: sandbox.keys.ip_locked,
    SVC_OTHER_WORKSPACE_KEY: sandbox.keys.other_workspace,
    SVC_OTHER_WORKSPACE_ADMIN_KEY: sandbox.keys.other_workspace_admin,
    SVC_WEBHOOK_SECRET: SECRET,
    ...extra,
  });
}

describe('svc contract verify against the sandbox', () => {
  it('passes --level strict with every input given, the 30 s redelivery included; records the run; cleans up', async () => {
    const { sandbox, port } = await sandboxDelivering();
    const junit = join(mkdtempSync(join(tmpdir(), 'svc-junit-')), 'contract.xml');
    const result = await runSvc(
      [
        'contract',
        'verify',
        '--base-url',
        sandbox.url,
        '--ca-cert',
        sandbox.caCert,
        '--webhook-port',
        String(port),
        '--level',
        'strict',
        // The sandbox is this run's alone: the kit may exhaust its window.
        '--provoke-429',
        '--json',
        '--junit',
        junit,
      ],
      {
        env: kitEnv(sandbox),
      },
    );
    const output = JSON.parse(result.stdout);
    const failures = output.checks.filter((check: { status: string }) => check.status !== 'passed');
    expect(failures, result.stderr).toEqual([]);
    expect(result.code).toBe(0);
    expect(output).toMatchObject({ level: 'strict', passed: CATALOGUE.length, failed: 0, skipped: 0 });
    expect(output.checks.find((check: { id: string }) => check.id === 'events.redelivery').detail).toMatch(/^delivered again after (29|3\d)\.\d s$/);

    // The run record: what was checked, with which contract and kit, against what, when, and how much of the specification.
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
    expect(output.run).toMatchObject({
      kit_version: pkg.version,
      base_url: sandbox.url,
      level: 'strict',
      fast: false,
      openapi_sha256: sha256('openapi.yaml'),
      contracts: [{ file: 'contracts/svc-visa-report-service.json', sha256: sha256('contracts/svc-visa-report-service.json') }],
    });
    expect(Date.parse(output.run.finished_at) - Date.parse(output.run.started_at)).toBe(output.run.duration_ms);
    const part4 = output.run.coverage.find((part: { part: string }) => part.part === '4');
    expect(part4).toMatchObject({ stated_rules: part4.clauses.length, checked: part4.with_checks });

    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="svc contract verify" tests="\d+" failures="0" errors="0" time="/);
    expect(xml.match(/<testcase /g)).toHaveLength(CATALOGUE.length);
    expect(xml).toContain(`<property name="openapi_sha256" value="${sha256('openapi.yaml')}"/>`);
    expect(xml).toContain('<property name="coverage.clause.5.2" value="checked: transport.https-only, strict.plain-http-answer"/>');

    // Nothing on stdout but the JSON, no key anywhere.
    for (const key of Object.values(sandbox.keys)) {
      expect(result.stdout).not.toContain(key);
      expect(result.stderr).not.toContain(key);
      expect(xml).not.toContain(key);
    }
    // The kit deleted every report it made: the workspace it started empty is empty again.
    const list = (await (await sandbox.fetch('/v1/reports')).json()) as { data: unknown[] };
    expect(list.data).toEqual([]);
    // A whole run at level strict, the 30 s redeliveries included.
  }, 240_000);
});
