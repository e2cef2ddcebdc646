/**
 * svc as npm installs it outside a checkout: the package `npm pack` makes, installed globally into a
 * prefix of its own. What it holds and needs, and the CI recipes run with it: the GitHub Action's
 * script and the documented GitLab job's commands, against the sandbox.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HANG_MS } from '../helpers/hang.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { json, startServer } from '../helpers/server.js';
import { isolatedEnv } from '../helpers/svc.js';
import { makeCertificate } from '../helpers/tls.js';

const root = new URL('../../', import.meta.url);
const pjson = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { name: string; version: string; dependencies: Record<string, string> };
const work = mkdtempSync(join(tmpdir(), 'svc-installed-'));
const prefix = join(work, 'prefix');
const installed = join(prefix, 'lib', 'node_modules', pjson.name);
let tarball = '';
let sandbox: RunningSandbox;

/** Every package directory under node_modules, nested ones included. */
function packagesUnder(directory: string): string[] {
  const found: string[] = [];
  const visit = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((name) => join(entry, name)) : [entry];
      for (const name of names) {
        found.push(name);
        visit(join(modules, name, 'node_modules'));
      }
    }
  };
  visit(join(directory, 'node_modules'));
  return found;
}

beforeAll(async () => {
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], { cwd: root, encoding: 'utf8' });
  tarball = join(work, packed.trim().split('\n').at(-1)!);
  // As a user installs it; the registry's packages come from npm's cache where it has them.
  execFileSync('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-fund', '--no-audit', '--loglevel', 'error', tarball], {
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 5 * HANG_MS,
  });
  sandbox = await startSandboxProcess(['--quiet']);
}, 6 * HANG_MS);

afterAll(async () => {
  await sandbox?.stop();
});

/** The user's PATH: the installed svc first, then the Node this test runs on (the pinned one). */
function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = isolatedEnv(extra);
  return { ...env, PATH: [join(prefix, 'bin'), dirname(process.execPath), env.PATH].join(':') };
}

/** Runs the action's script as action.yml does, without blocking this process (a test server may answer in it). */
function runScript(env: Record<string, string>, cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [new URL('scripts/github-action.js', root).pathname], { cwd, env, timeout: 3 * HANG_MS, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function kitEnv(): { SVC_BASE_URL: string; SVC_CA_CERT: string } & Record<string, string> {
  return {
    SVC_BASE_URL: sandbox.url,
    SVC_CA_CERT: sandbox.caCert,
    SVC_API_KEY: sandbox.keys.test,
    SVC_ADMIN_KEY: sandbox.keys.admin,
    SVC_READ_ONLY_KEY: sandbox.keys.read_only,
    SVC_IP_LOCKED_KEY: sandbox.keys.ip_locked,
    SVC_OTHER_WORKSPACE_KEY: sandbox.keys.other_workspace,
    SVC_OTHER_WORKSPACE_ADMIN_KEY: sandbox.keys.other_workspace_admin,
  };
}

describe('the npm package', () => {
  it('is named visa-report-svc, installs the command svc, and holds no source map', () => {
    expect(pjson.name).toBe('visa-report-svc');
    const listed = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
    expect(listed).toContain('package/bin/run.js');
    expect(listed).toContain('package/dist/cli/run.js');
    expect(listed.filter((path) => path.endsWith('.map'))).toEqual([]);
    expect(existsSync(join(prefix, 'bin', 'svc'))).toBe(true);
    expect(existsSync(join(prefix, 'bin', pjson.name))).toBe(false);
  });

  it('depends only on what the bundle leaves out: oclif’s plugins, Pact and unpdf', () => {
    expect(Object.keys(pjson.dependencies).sort()).toEqual([
      '@oclif/plugin-autocomplete',
      '@oclif/plugin-help',
      '@oclif/plugin-not-found',
      '@pact-foundation/pact',
      'unpdf',
    ]);
    const packages = packagesUnder(installed);
    // Bundled into dist/ and needed by no dependency (oclif's plugins bring @oclif/core, @inquirer/prompts and a few more of their own).
    for (const bundled of ['ajv', 'ajv-formats', 'busboy', 'cli-progress', 'selfsigned', 'write-file-atomic', 'yaml']) expect(packages).not.toContain(bundled);
    // Measured for the README's "Installing": 277 packages when all of the bundle's were dependencies.
    expect(packages.length).toBeLessThan(230);
  });

  it('runs from the install: --version, and the demo', { timeout: 4 * HANG_MS }, () => {
    const env = userEnv();
    expect(execFileSync('svc', ['--version'], { env, encoding: 'utf8' })).toMatch(new RegExp(`^svc/${pjson.version.replace(/\./g, '\\.')} `));
    const demo = spawnSync('svc', ['demo'], { env, encoding: 'utf8', timeout: 2 * HANG_MS });
    expect(demo.status, demo.stderr).toBe(0);
    expect(demo.stdout).toContain('risk score');
  });
});

describe('the GitHub Action', () => {
  it('sets up the Node the project pins', () => {
    const pinned = JSON.parse(readFileSync(new URL('node_modules/node/package.json', root), 'utf8')) as { version: string };
    expect(readFileSync(new URL('.node-version', root), 'utf8').trim()).toBe(pinned.version);
    const action = parse(readFileSync(new URL('action.yml', root), 'utf8')) as { runs: { steps: Array<{ uses?: string; with?: Record<string, string> }> } };
    expect(action.runs.steps[0]).toEqual({ uses: 'actions/setup-node@v4', with: { 'node-version-file': '${{ github.action_path }}/.node-version' } });
  });

  it(
    'runs the kit with its inputs, writes the verdict and the checks that did not pass to the summary, and leaves the JUnit file',
    { timeout: 4 * HANG_MS },
    async () => {
      const workspace = mkdtempSync(join(tmpdir(), 'svc-action-'));
      const summary = join(workspace, 'summary.md');
      const { SVC_BASE_URL, SVC_CA_CERT, ...keys } = kitEnv();
      // As action.yml passes them: inputs as INPUT_*, keys as svc's variables, and the inputs not given empty.
      const env = userEnv({
        ...keys,
        SVC_REVOCABLE_KEY: '',
        SVC_WEBHOOK_SECRET: '',
        INPUT_BASE_URL: SVC_BASE_URL,
        INPUT_CA_CERT: SVC_CA_CERT,
        INPUT_LEVEL: 'spec',
        INPUT_FAST: 'true',
        // The checks of keys and authentication: what this test is about is the script, not the kit's verdicts.
        INPUT_ONLY: 'auth.*,keys.*',
        INPUT_FIXTURES: '',
        INPUT_WEBHOOK_PORT: '',
        INPUT_JUNIT: 'contract.xml',
        GITHUB_STEP_SUMMARY: summary,
      });
      const result = await runScript(env, workspace);
      expect(result.status, result.stderr).toBe(0);
      const text = readFileSync(summary, 'utf8');
      expect(text).toMatch(
        /^## svc contract verify\n\n\*\*conforms\*\* at level spec against https:\/\/127\.0\.0\.1:\d+\n\n\| passed \| failed \| inconclusive \| skipped \|\n\|---\|---\|---\|---\|\n\| [1-9]\d* \| 0 \| 0 \| \d+ \|\n$/,
      );
      const junit = readFileSync(join(workspace, 'contract.xml'), 'utf8');
      expect(junit).toContain('<testsuites name="svc contract verify"');
      for (const key of Object.values(keys)) expect(text + result.stdout + result.stderr + junit).not.toContain(key);
    },
  );

  it('lists each failed check in the summary and exits as svc does', { timeout: 4 * HANG_MS }, async () => {
    const certificate = await makeCertificate();
    const server = await startServer((_request, response) => json(response, 200, {}), certificate);
    const workspace = mkdtempSync(join(tmpdir(), 'svc-action-'));
    writeFileSync(join(workspace, 'ca.pem'), certificate.cert);
    const summary = join(workspace, 'summary.md');
    const env = userEnv({
      SVC_API_KEY: sandbox.keys.test,
      INPUT_BASE_URL: server.url,
      INPUT_CA_CERT: join(workspace, 'ca.pem'),
      INPUT_ONLY: 'auth.missing-header,auth.unknown-key',
      INPUT_JUNIT: 'contract.xml',
      GITHUB_STEP_SUMMARY: summary,
    });
    try {
      const result = await runScript(env, workspace);
      const text = readFileSync(summary, 'utf8');
      expect(result.status, text + result.stderr).toBe(17);
      expect(text).toContain(
        [
          `**does not conform** at level spec against ${server.url}`,
          '',
          '| passed | failed | inconclusive | skipped |',
          '|---|---|---|---|',
          '| 0 | 2 | 0 | 0 |',
          '',
          '| check | part | status | detail |',
          '|---|---|---|---|',
          '| auth.missing-header: a request without Authorization gets 401 with the code unauthorized | 7 | failed | expected 401 with the code unauthorized; got 200 {} (GET /v1/reports without a valid key) |',
        ].join('\n'),
      );
      expect(readFileSync(join(workspace, 'contract.xml'), 'utf8')).toContain('failures="2"');
    } finally {
      await server.close();
    }
  });

  it('says in the summary when svc could not run at all', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'svc-action-'));
    const summary = join(workspace, 'summary.md');
    const env = userEnv({ SVC_API_KEY: sandbox.keys.test, INPUT_BASE_URL: 'not a url', GITHUB_STEP_SUMMARY: summary });
    const result = await runScript(env, workspace);
    expect(result.status).not.toBe(0);
    expect(readFileSync(summary, 'utf8')).toMatch(new RegExp(`^## svc contract verify\n\n\\*\\*could not run\\*\\* \\(exit code ${result.status}\\): .+`));
  });
});

describe('the GitLab CI job (docs/ci/gitlab-ci.yml)', () => {
  it('installs the version of this package and keeps the JUnit report as GitLab reads it', () => {
    const job = (parse(readFileSync(new URL('docs/ci/gitlab-ci.yml', root), 'utf8')) as Record<string, Record<string, unknown>>)['contract-verify']!;
    expect(job.variables).toEqual({ SVC_VERSION: pjson.version });
    expect(job.artifacts).toEqual({ when: 'always', paths: ['contract.xml'], reports: { junit: 'contract.xml' } });
  });

  // An install and a whole kit run: its guard is the job's own (6 × HANG_MS), not the default's two minutes.
  it('runs its commands against the sandbox, svc installed from this package rather than the registry', { timeout: 7 * HANG_MS }, () => {
    const job = (parse(readFileSync(new URL('docs/ci/gitlab-ci.yml', root), 'utf8')) as Record<string, { script: string[] }>)['contract-verify']!;
    const install = `"${pjson.name}@\${SVC_VERSION}"`;
    expect(job.script[0]).toContain(install);
    const workspace = mkdtempSync(join(tmpdir(), 'svc-gitlab-'));
    // GitLab runs the script's lines in one shell that stops at the first failing one; the job's variables
    // are in the environment, with the keys from the project's CI/CD variables.
    const script = ['set -eo pipefail', job.script[0]!.replace(install, tarball), ...job.script.slice(1)].join('\n');
    const env = userEnv({ ...kitEnv(), SVC_VERSION: pjson.version, npm_config_prefix: prefix, npm_config_prefer_offline: 'true' });
    const result = spawnSync('bash', ['-c', script], { cwd: workspace, env, encoding: 'utf8', timeout: 6 * HANG_MS });
    expect(result.stdout).toMatch(new RegExp(`^svc/${pjson.version.replace(/\./g, '\\.')} `, 'm'));
    // The kit ran to its verdict (whether the sandbox conforms is test/conformance/sandbox.test.ts's to say)
    // and GitLab gets a JUnit report that agrees with the exit code.
    const junit = readFileSync(join(workspace, 'contract.xml'), 'utf8');
    const failures = Number(/<testsuites name="svc contract verify" tests="\d+" failures="(\d+)" errors="0"/.exec(junit)?.[1]);
    expect(result.status, result.stderr).toBe(failures === 0 ? 0 : 17);
  });
});
