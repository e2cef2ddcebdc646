/**
 * svc's GitHub Action (action.yml) run as a runner runs it (test/helpers/github-runner.ts), on a
 * machine where no registry has svc (test/helpers/ci-machine.ts: npm offline, the dependencies from
 * npm's cache), from a fresh copy of the repository at GITHUB_ACTION_PATH, without node_modules or
 * dist/, as the runner downloads an action.
 *
 * Two steps run code of other repositories and cannot run here. actions/setup-node is stood in for as
 * it sets Node up: the Node it is asked for, which must be the pinned one (node_modules/node/bin/node,
 * the version .node-version names), put in a tool cache and its bin/ added to PATH, so that npm's
 * global prefix is that Node's, as on a runner. actions/cache is skipped: what it would restore, npm's
 * cache, is the machine's.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ExitCode } from '../../src/core/errors.js';
import { markdownText } from '../../src/ui/markdown-text.js';
import { checkoutCopy } from '../helpers/checkout.js';
import { ciMachineEnv, installPinnedNode, PINNED_NODE_VERSION } from '../helpers/ci-machine.js';
import { type ActionRun, type Job, newJob, readAction, runCompositeAction, type RunnerFiles } from '../helpers/github-runner.js';
import { HANG_MS } from '../helpers/hang.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { startServer } from '../helpers/server.js';
import { makeCertificate } from '../helpers/tls.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const SCHEMA = join(ROOT, 'test', 'fixtures', 'junit', 'junit-10.xsd');
const VERIFY_STEP = 'svc contract verify';

const work = mkdtempSync(join(tmpdir(), 'svc-github-action-'));
const toolCache = join(work, 'tool-cache');
const nodeHome = join(toolCache, 'node', PINNED_NODE_VERSION, 'x64');
let actionPath: string;
let files: RunnerFiles;
let job: Job;
let sandbox: RunningSandbox;
let first: ActionRun;

/** What setup-node does with `node-version`: that Node in the tool cache, its bin/ on PATH. */
function setupNode(inputs: Record<string, string>): string[] {
  expect(inputs).toEqual({ 'node-version': PINNED_NODE_VERSION });
  return [installPinnedNode(nodeHome)];
}

const USES = { 'actions/setup-node@v4': setupNode, 'actions/cache@v4': () => [] };

function freshFiles(name: string): RunnerFiles {
  const workspace = join(work, name, 'workspace');
  const runnerTemp = join(work, name, 'runner-temp');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(runnerTemp, { recursive: true });
  return { actionPath, workspace, runnerTemp };
}

function expectValidJunit(path: string): void {
  const result = spawnSync('xmllint', ['--noout', '--schema', SCHEMA, path], { encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
}

/** What an implementation may answer to take over the summary: a fake heading, a tracking image, links, HTML, a comment that hides the rest. */
const MARKUP =
  '\r## ✅ conforms\r![tracker](https://evil.example/t.png) <img src="https://evil.example/x.png"> [click](https://evil.example) <https://evil.example> | **bold** <!--';

/** Nothing of the implementation's acts: no control character, no workflow command, no Markdown or HTML of its own in the summary. */
function expectInert(run: ActionRun): void {
  for (const text of [run.summary, run.log]) expect(text).not.toMatch(/[\u0000\u0007\u001b\r]|^\s*::(error|add-mask)/m);
  expect(run.commands).toEqual([]);
  // Each character Markdown would act on is escaped.
  expect(run.summary).not.toMatch(/^#+ ✅|(?<!\\)<img|(?<!\\)<https|(?<!\\)<!|(?<!\\)!\[|(?<!\\)\]\(https|(?<!\\)\*\*bold/m);
}

/** Everything the run left for people and for later steps. */
const everything = (run: ActionRun) =>
  [run.log, run.summary, JSON.stringify(run.outputs), existsSync(run.outputs.junit!) ? readFileSync(run.outputs.junit!, 'utf8') : ''].join('\n');

// A hang guard, never a measure: an install of svc from its checkout (npm ci, the build) and a run of the kit take what a loaded machine needs.
beforeAll(async () => {
  actionPath = checkoutCopy(join(work, 'action'));
  files = freshFiles('first');
  job = newJob(ciMachineEnv({ GITHUB_ACTIONS: 'true' }));
  sandbox = await startSandboxProcess(['--quiet']);
  first = await runCompositeAction({
    job,
    files,
    uses: USES,
    inputs: { 'base-url': sandbox.url, 'api-key': sandbox.keys.test, 'ca-cert': sandbox.caCert, fast: 'true' },
  });
}, 10 * HANG_MS);

afterAll(async () => {
  await sandbox?.stop();
});

describe('the GitHub Action, as a runner runs it', () => {
  it('installs svc from its own checkout, with no registry, on the Node it pins', () => {
    expect(first.status, first.log).toBe(0);
    expect(first.ran).toEqual([
      'Read the Node and the packages svc is built with',
      'actions/setup-node@v4',
      'actions/cache@v4',
      "Install svc from the action's checkout",
      VERIFY_STEP,
    ]);
    expect(job.addedPath).toContain(join(files.runnerTemp, 'svc', 'bin'));
    expect(existsSync(join(actionPath, 'dist', 'ci', 'github-action.js'))).toBe(true);
    // Pact's telemetry is the empty package the project's overrides put in its place: no install script of a dependency ran.
    expect(JSON.parse(readFileSync(join(actionPath, 'node_modules', '@scarf', 'scarf', 'package.json'), 'utf8'))).toMatchObject({ name: 'empty-npm-package' });
    expect(first.log).toContain(`svc/${VERSION} linux-x64 node-v${PINNED_NODE_VERSION} `);
  });

  it('leaves its outputs: the verdict, the counts and the JUnit report, which agree', () => {
    const junit = join(files.workspace, 'contract.xml');
    expect(first.outputs).toEqual({
      verdict: 'conforms',
      passed: expect.stringMatching(/^[1-9]\d*$/),
      failed: '0',
      inconclusive: '0',
      skipped: expect.stringMatching(/^[1-9]\d*$/),
      junit,
    });
    expectValidJunit(junit);
    const xml = readFileSync(junit, 'utf8');
    expect((xml.match(/<skipped /g) ?? []).length).toBe(Number(first.outputs.skipped));
    expect((xml.match(/<testcase /g) ?? []).length).toBe(Number(first.outputs.passed) + Number(first.outputs.skipped));
  });

  it('names in the summary every check it skipped, with what the check needs', () => {
    const xml = readFileSync(first.outputs.junit!, 'utf8');
    const skipped = [...xml.matchAll(/<testcase classname="[^"]+" name="([^":]+): [^"]*" time="[^"]+">\n\s*<skipped message="([^"]+)"/g)].map(
      ([, id, why]) => ({ id: id!, why: why! }),
    );
    expect(skipped.length).toBe(Number(first.outputs.skipped));
    expect(first.summary).toContain(
      `**conforms** at level spec against ${markdownText(sandbox.url)}: ${first.outputs.passed} of ${Number(first.outputs.passed) + skipped.length} checks ran, ${skipped.length} were skipped`,
    );
    expect(first.summary).toContain('### Skipped: not checked, for want of an input');
    for (const { id, why } of skipped) {
      const unescaped = why
        .replace(/&quot;/g, '"')
        .replace(/&apos;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&');
      expect(first.summary).toMatch(new RegExp(`^\\| ${escapeRegExp(markdownText(id))}: .+ \\| ${escapeRegExp(markdownText(unescaped))} \\|$`, 'm'));
    }
    expect(first.summary).toContain(`| ${markdownText('auth.read-only-can-read')}: `);
  });

  it('shows no key, and leaves no workflow command in the log', () => {
    for (const key of Object.values(sandbox.keys)) expect(everything(first)).not.toContain(key);
    expect(first.commands).toEqual([]);
  });

  it('cannot have TLS checks turned off by an INPUT_INSECURE of the job, and leaves a JUnit report of a run that could not start', async () => {
    const strayJob = newJob({ ...job.env, INPUT_INSECURE: 'true' });
    Object.assign(strayJob.addedPath, job.addedPath);
    const run = await runCompositeAction({
      job: strayJob,
      files: freshFiles('stray-insecure'),
      uses: USES,
      from: VERIFY_STEP,
      // No ca-cert: the sandbox's certificate is one no system trusts.
      inputs: { 'base-url': sandbox.url, 'api-key': sandbox.keys.test, only: 'auth.missing-header' },
    });
    expect(run.status).not.toBe(0);
    expect(run.outputs).toMatchObject({ verdict: 'error', passed: '0', failed: '0', inconclusive: '0', skipped: '0' });
    expect(run.summary).toMatch(new RegExp(`^## svc contract verify\n\n\\*\\*error\\*\\*: no verdict \\(exit code ${run.status}\\): .*certificate`, 'm'));
    expectValidJunit(run.outputs.junit!);
    expect(readFileSync(run.outputs.junit!, 'utf8')).toContain(`<error message="exit code ${run.status}: `);

    // The declared input does turn them off.
    const insecure = await runCompositeAction({
      job,
      files: freshFiles('insecure'),
      uses: USES,
      from: VERIFY_STEP,
      inputs: { 'base-url': sandbox.url, 'api-key': sandbox.keys.test, only: 'auth.missing-header', insecure: 'true' },
    });
    expect(insecure.outputs.verdict, insecure.log).toBe('conforms');
  });

  it('leaves a JUnit report of a usage error, which svc refuses before it knows where to write one', async () => {
    const run = await runCompositeAction({
      job,
      files: freshFiles('usage'),
      uses: USES,
      from: VERIFY_STEP,
      inputs: { 'base-url': sandbox.url, 'api-key': sandbox.keys.test, level: 'loose' },
    });
    expect(run.status).toBe(ExitCode.usage);
    expect(run.outputs.verdict).toBe('error');
    expectValidJunit(run.outputs.junit!);
    expect(readFileSync(run.outputs.junit!, 'utf8')).toContain(`<error message="exit code ${ExitCode.usage}: `);
    expect(run.summary).toContain(`**error**: no verdict (exit code ${ExitCode.usage}): `);
  });

  it('puts what an implementation answers into the summary and the log inert: no Markdown, HTML, workflow command or control character of its own', async () => {
    const hostile = `\n::error::forged\r\u001b]0;retitled\u0007\u0000 ${MARKUP}`;
    const certificate = await makeCertificate();
    const server = await startServer((_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(hostile), certificate);
    const runFiles = freshFiles('hostile');
    const caCert = join(runFiles.workspace, 'ca.pem');
    writeFileSync(caCert, certificate.cert);
    try {
      const run = await runCompositeAction({
        job,
        files: runFiles,
        uses: USES,
        from: VERIFY_STEP,
        inputs: { 'base-url': server.url, 'api-key': sandbox.keys.test, 'ca-cert': 'ca.pem', only: 'auth.missing-header,auth.unknown-key' },
      });
      expect(run.status).toBe(ExitCode.nonConformant);
      expect(run.outputs).toMatchObject({ verdict: 'does-not-conform', failed: '2' });
      expect(run.summary).toContain('### Failed');
      expect(run.summary).toContain(markdownText('::error::forged'));
      expectInert(run);
    } finally {
      await server.close();
    }
  });

  it('keeps inert what an implementation that refuses the key answers, a bare CR and workflow commands in it', async () => {
    const certificate = await makeCertificate();
    // svc's error message keeps the text of a refusal as it came, a bare CR included.
    const hostile = `refused\r::add-mask::refused\r::error::forged\r${MARKUP}`;
    const server = await startServer((_request, response) => response.writeHead(401, { 'content-type': 'text/plain' }).end(hostile), certificate);
    const runFiles = freshFiles('hostile-refusal');
    writeFileSync(join(runFiles.workspace, 'ca.pem'), certificate.cert);
    try {
      const run = await runCompositeAction({
        job,
        files: runFiles,
        uses: USES,
        from: VERIFY_STEP,
        inputs: { 'base-url': server.url, 'api-key': sandbox.keys.test, 'ca-cert': 'ca.pem', only: 'auth.missing-header' },
      });
      expect(run.status).toBe(ExitCode.auth);
      expect(run.outputs.verdict).toBe('error');
      expect(run.summary).toContain(markdownText('\r::error::forged\r'));
      expectInert(run);
      expectValidJunit(run.outputs.junit!);
    } finally {
      await server.close();
    }
  });
});

/**
 * Issue 42: the GitHub Actions example of docs/contract-kit.md, with its inputs as the docs give them
 * (only the base URL, the sandbox's, and its CA certificate, which no system trusts, differ), passes
 * against the sandbox run after run, and three runs at once. The secrets it names are the sandbox's
 * keys; a secret the test does not know, or an input the action does not take, fails it, so that the
 * docs cannot drift from what is tested.
 */
describe('the GitHub Actions example of docs/contract-kit.md', () => {
  let target: RunningSandbox;

  beforeAll(async () => {
    // The Enterprise plan: this is about the keys each run is given, not the rate limit (test/conformance/shared-workspace.test.ts).
    target = await startSandboxProcess(['--quiet', '--plan', 'enterprise']);
  }, 2 * HANG_MS);

  afterAll(async () => {
    await target?.stop();
  });

  /** The `with:` of the step that uses the action, in the docs' example. */
  function exampleInputs(): Record<string, string> {
    const docs = readFileSync(join(ROOT, 'docs', 'contract-kit.md'), 'utf8');
    const block = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!).find((yaml) => /uses: your-org\/svc@/.test(yaml));
    expect(block, 'the docs have a GitHub Actions example').toBeDefined();
    const workflow = parse(block!) as { jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, string> }> }> };
    const step = Object.values(workflow.jobs)
      .flatMap((job) => job.steps)
      .find((candidate) => candidate.uses?.startsWith('your-org/svc@'));
    return step!.with!;
  }

  /** The example's inputs for the sandbox: its secrets are the sandbox's keys. */
  function inputsFor(example: Record<string, string>): Record<string, string> {
    const secrets: Record<string, string> = {
      STAGING_TEST_KEY: target.keys.test,
      STAGING_ADMIN_KEY: target.keys.admin,
      STAGING_READ_ONLY_KEY: target.keys.read_only,
      STAGING_IP_LOCKED_KEY: target.keys.ip_locked,
      STAGING_OTHER_WORKSPACE_KEY: target.keys.other_workspace,
      STAGING_OTHER_WORKSPACE_ADMIN_KEY: target.keys.other_workspace_admin,
    };
    const inputs = Object.fromEntries(
      Object.entries(example).map(([name, value]) => {
        const named = /^\$\{\{\s*(?:secrets|vars)\.(\w+)\s*\}\}$/.exec(String(value));
        if (!named) return [name, String(value)];
        expect(secrets, `the example's ${name}`).toHaveProperty(named[1]!);
        return [name, secrets[named[1]!]!];
      }),
    );
    expect(inputs['base-url']).toMatch(/^https:\/\//);
    return { ...inputs, 'base-url': target.url, 'ca-cert': target.caCert };
  }

  async function runExample(name: string): Promise<ActionRun> {
    const inputs = inputsFor(exampleInputs());
    const runFiles = freshFiles(name);
    // The user's fixtures: the sandbox takes openapi.yaml's own upload.
    writeFileSync(join(runFiles.workspace, inputs.fixtures!), 'document:\n  encoding: multipart\n');
    return runCompositeAction({ job, files: runFiles, uses: USES, from: VERIFY_STEP, inputs });
  }

  function expectConforms(run: ActionRun): void {
    expect(run.status, run.summary + run.log).toBe(0);
    expect(run.outputs).toMatchObject({ verdict: 'conforms', failed: '0', inconclusive: '0' });
    // The revocation checks ran (the example's admin key), on a key of the run's own.
    const xml = readFileSync(run.outputs.junit!, 'utf8');
    for (const id of ['auth.revocation-needs-admin', 'auth.revocation-immediate', 'auth.workspace-admin']) {
      expect(xml).toMatch(
        new RegExp(
          `<testcase classname="[^"]+" name="${escapeRegExp(id)}: [^"]*" time="[^"]+">\\n\\s*<system-out>on key_\\w+, a key the kit made for this run`,
        ),
      );
    }
  }

  it(
    'passes twice in a row with the same inputs, and three times at once',
    async () => {
      for (const name of ['example-1', 'example-2']) expectConforms(await runExample(name));
      const atOnce = await Promise.all(['example-a', 'example-b', 'example-c'].map((name) => runExample(name)));
      for (const run of atOnce) expectConforms(run);
    },
    10 * HANG_MS,
  );
});

describe('the action’s interface', () => {
  const action = readAction(join(ROOT, 'action.yml'));
  const verify = action.runs.steps.find((step) => step.name === VERIFY_STEP)!;
  const secrets = {
    'api-key': 'SVC_API_KEY',
    'admin-key': 'SVC_ADMIN_KEY',
    'read-only-key': 'SVC_READ_ONLY_KEY',
    'ip-locked-key': 'SVC_IP_LOCKED_KEY',
    'other-workspace-key': 'SVC_OTHER_WORKSPACE_KEY',
    'other-workspace-admin-key': 'SVC_OTHER_WORKSPACE_ADMIN_KEY',
    'revocable-key': 'SVC_REVOCABLE_KEY',
    'rate-limit-key': 'SVC_RATE_LIMIT_KEY',
    'webhook-secret': 'SVC_WEBHOOK_SECRET',
  } as Record<string, string>;

  it('maps every input it declares to the variable the script reads, and sets nothing else', () => {
    const expected = Object.fromEntries(
      Object.keys(action.inputs).map((name) => [secrets[name] ?? `INPUT_${name.toUpperCase().replace(/-/g, '_')}`, `\${{ inputs.${name} }}`]),
    );
    expect(verify.env).toEqual(expected);
    expect(action.inputs).toMatchObject({
      insecure: { default: 'false' },
      'webhook-tls': { default: 'false' },
      fast: { default: 'false' },
      'provoke-429': { default: 'false' },
    });
  });

  it('gives the verdict, the counts and the JUnit report’s path as outputs', () => {
    expect(Object.keys(action.outputs)).toEqual(['verdict', 'passed', 'failed', 'inconclusive', 'skipped', 'junit']);
    for (const [name, output] of Object.entries(action.outputs)) expect(output.value).toBe(`\${{ steps.verify.outputs.${name} }}`);
  });

  it('refuses to run when its step does not set an input the script reads', () => {
    const script = join(actionPath, 'dist', 'ci', 'github-action.js');
    const workspace = freshFiles('unmapped').workspace;
    const env: Record<string, string> = {
      ...job.env,
      ...Object.fromEntries(Object.keys(verify.env!).map((name) => [name, ''])),
      INPUT_BASE_URL: sandbox.url,
      SVC_API_KEY: sandbox.keys.test,
    };
    delete env.INPUT_INSECURE;
    const result = spawnSync(join(nodeHome, 'bin', 'node'), [script], { cwd: workspace, env, encoding: 'utf8' });
    expect(result.status).toBe(ExitCode.usage);
    expect(result.stdout).toContain(markdownText('the step does not set INPUT_INSECURE'));
    expectValidJunit(join(workspace, 'contract.xml'));
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
