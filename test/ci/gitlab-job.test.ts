/**
 * The GitLab job of docs/ci/gitlab-ci.yml run as a GitLab runner runs it, on a machine where no
 * registry has svc (test/helpers/ci-machine.ts: npm offline, the dependencies from npm's cache): its
 * `script:` lines in order in one bash that stops at the first failing one, with the job's
 * `variables:` (GitLab's `$NAME` expanded), the project's CI/CD variables over them, and CI_PROJECT_DIR.
 *
 * The image, node:24-bookworm, is stood in for by the pinned Node installed in a directory of the
 * test's first on PATH (npm's global prefix, as /usr/local is the image's). GitLab's cache, .npm/ of
 * the project directory, is restored as a link to the machine's npm cache. svc's repository is a git
 * repository of this checkout's files, cloned by file:// URL; its self-contained tarball, made from the
 * clone the first job left, is served on 127.0.0.1.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ExitCode } from '../../src/core/errors.js';
import { checkoutCopy } from '../helpers/checkout.js';
import { ciMachineEnv, installPinnedNode, PINNED_NODE_VERSION } from '../helpers/ci-machine.js';
import { HANG_MS } from '../helpers/hang.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { freePort, startServer, type TestServer } from '../helpers/server.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const SCHEMA = join(ROOT, 'test', 'fixtures', 'junit', 'junit-10.xsd');
const BRANCH = 'svc-under-test';
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface GitlabJob {
  image: string;
  variables: Record<string, string>;
  cache: { key: string; paths: string[] };
  script: string[];
  artifacts: unknown;
}

const job = (parse(readFileSync(join(ROOT, 'docs', 'ci', 'gitlab-ci.yml'), 'utf8')) as Record<string, GitlabJob>)['contract-verify']!;
const work = mkdtempSync(join(tmpdir(), 'svc-gitlab-'));
const image = join(work, 'image');
const repository = join(work, 'svc-repository');
let sandbox: RunningSandbox;
let tarballServer: TestServer;

interface JobRun {
  status: number | null;
  log: string;
  projectDir: string;
}

/** `$NAME` and `${NAME}` of a variable's value, as GitLab expands them. */
function expand(value: string, variables: Record<string, string>): string {
  return value.replace(/\$\{?(\w+)\}?/g, (_match, name: string) => variables[name] ?? '');
}

/** Runs the job's script on a fresh project directory, with the project's CI/CD variables. */
function runJob(name: string, projectVariables: Record<string, string>, path: string[]): Promise<JobRun> {
  const projectDir = join(work, name);
  mkdirSync(projectDir);
  const machine = ciMachineEnv();
  symlinkSync(machine.npm_config_cache!, join(projectDir, job.cache.paths[0]!.replace(/\/$/, '')));
  const predefined = { CI: 'true', GITLAB_CI: 'true', CI_PROJECT_DIR: projectDir, CI_JOB_NAME: 'contract-verify' };
  const variables: Record<string, string> = { ...predefined };
  for (const [variable, value] of Object.entries(job.variables)) variables[variable] = expand(value, variables);
  const env = { ...machine, ...variables, ...projectVariables, PATH: [...path, machine.PATH].join(':') };
  const script = ['set -eo pipefail', ...job.script].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-c', script], { cwd: projectDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, log, projectDir }));
  });
}

function kitVariables(): Record<string, string> {
  return {
    SVC_BASE_URL: sandbox.url,
    SVC_CA_CERT: sandbox.caCert,
    SVC_API_KEY: sandbox.keys.test,
    SVC_ADMIN_KEY: sandbox.keys.admin,
    SVC_READ_ONLY_KEY: sandbox.keys.read_only,
    SVC_OTHER_WORKSPACE_KEY: sandbox.keys.other_workspace,
    // The kit's waits (the redeliveries, a rate-limit window) are not this test's subject.
    SVC_VERIFY_FLAGS: '--fast',
  };
}

function expectValidJunit(path: string): void {
  const result = spawnSyncText('xmllint', ['--noout', '--schema', SCHEMA, path]);
  expect(result.status, result.output).toBe(0);
}

function spawnSyncText(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): { status: number | null; output: string } {
  const result = spawnSync(command, args, { ...options, encoding: 'utf8' });
  return { status: result.status, output: result.stdout + result.stderr };
}

/** What the job's JUnit report says: no failure and no error exits 0; a failure 17. */
function expectReportAgreesWithExit(run: JobRun): void {
  const junit = join(run.projectDir, 'contract.xml');
  expectValidJunit(junit);
  const [, failures, errors] = /<testsuites name="svc contract verify" tests="\d+" failures="(\d+)" errors="(\d+)"/.exec(readFileSync(junit, 'utf8')) ?? [];
  expect(run.status, run.log).toBe(failures !== '0' ? ExitCode.nonConformant : errors !== '0' ? ExitCode.inconclusive : 0);
}

let fromRepository: JobRun;

// A hang guard, never a measure: an install of svc from its checkout (npm ci, the build) and a run of the kit take what a loaded machine needs.
beforeAll(async () => {
  checkoutCopy(repository, { branch: BRANCH });
  sandbox = await startSandboxProcess(['--quiet']);
  fromRepository = await runJob('from-repository', { ...kitVariables(), SVC_REPOSITORY: `file://${repository}`, SVC_REF: BRANCH }, [installPinnedNode(image)]);
}, 10 * HANG_MS);

afterAll(async () => {
  await sandbox?.stop();
  await tarballServer?.close();
});

describe('the GitLab job (docs/ci/gitlab-ci.yml)', () => {
  it('keeps the JUnit report as GitLab reads it, and npm’s cache', () => {
    expect(job.image).toBe('node:24-bookworm');
    expect(job.artifacts).toEqual({ when: 'always', paths: ['contract.xml'], reports: { junit: 'contract.xml' } });
    expect(job.variables.npm_config_cache).toBe('$CI_PROJECT_DIR/.npm');
    expect(job.cache.paths).toEqual(['.npm/']);
  });

  it('builds svc from its repository at a ref, with no registry, and runs the kit to a verdict', () => {
    expect(fromRepository.log).toContain(`svc/${VERSION} linux-x64 node-v${PINNED_NODE_VERSION} `);
    expect(existsSync(join(fromRepository.projectDir, '.svc', 'bin', 'svc'))).toBe(true);
    // Pact's telemetry is the empty package the project's overrides put in its place: no install script of a dependency ran.
    expect(JSON.parse(readFileSync(join(fromRepository.projectDir, '.svc', 'node_modules', '@scarf', 'scarf', 'package.json'), 'utf8'))).toMatchObject({
      name: 'empty-npm-package',
    });
    expectReportAgreesWithExit(fromRepository);
    for (const key of Object.values(sandbox.keys))
      expect(fromRepository.log + readFileSync(join(fromRepository.projectDir, 'contract.xml'), 'utf8')).not.toContain(key);
  });

  // A hang guard, never a measure: packing the tarball (as self-contained.test.ts does, in 8 × HANG_MS) and two jobs take what a busy machine needs.
  it('installs svc from the self-contained tarball at SVC_TARBALL_URL, with no Node of its own, and runs the kit', { timeout: 10 * HANG_MS }, async () => {
    // The tarball as a release would carry it: made with npm run pack:tarball in the clone the first job left.
    const clone = join(fromRepository.projectDir, '.svc');
    const machine = ciMachineEnv();
    const packed = spawnSyncText('npm', ['run', 'pack:tarball', '--silent', '--', '--out', join(work, 'packages')], {
      cwd: clone,
      // Packing is the release's work, not the job's: oclif's npm install of the package may ask the registry
      // what the cache does not hold (npm ci fills it with tarballs, not with the registry's listings).
      env: { ...machine, npm_config_offline: 'false', npm_config_prefer_offline: 'true', PATH: [installPinnedNode(image), machine.PATH].join(':') },
    });
    expect(packed.status, packed.output).toBe(0);
    const tarball = packed.output
      .trim()
      .split('\n')
      .findLast((line) => line.endsWith('.tar.gz'))!;
    tarballServer = await startServer((_request, response) => response.writeHead(200, { 'content-type': 'application/gzip' }).end(readFileSync(tarball)));

    // The machine's Node (20) alone: the tarball brings the one svc runs on.
    const run = await runJob('from-tarball', { ...kitVariables(), SVC_TARBALL_URL: `${tarballServer.url}/svc-linux-x64.tar.gz` }, []);
    expect(run.log).toContain(`node-v${PINNED_NODE_VERSION} `);
    expectReportAgreesWithExit(run);

    // An implementation it cannot reach: the job fails, and GitLab still gets a report, of the error.
    const unreachable = await runJob(
      'unreachable',
      { ...kitVariables(), SVC_BASE_URL: `https://127.0.0.1:${await freePort()}`, SVC_TARBALL_URL: `${tarballServer.url}/svc-linux-x64.tar.gz` },
      [],
    );
    expect(unreachable.status, unreachable.log).toBe(ExitCode.network);
    expectValidJunit(join(unreachable.projectDir, 'contract.xml'));
    expect(readFileSync(join(unreachable.projectDir, 'contract.xml'), 'utf8')).toContain(`<error message="exit code ${ExitCode.network}: `);
  });
});
