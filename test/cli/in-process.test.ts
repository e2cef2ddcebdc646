/**
 * Every command, run in this process (test/helpers/in-process.ts) against real servers on
 * loopback sockets: flags parsed, requests sent, answers rendered for people and as --json,
 * failures as the exit codes the README documents, questions answered by a stub. A command's own
 * behaviour is tested in test/commands/<topic>/<verb>.test.ts; this file makes sure that no command
 * is left without a run in this process.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ApplicantsCreate from '../../src/commands/applicants/create.js';
import ApplicantsGet from '../../src/commands/applicants/get.js';
import ApplicantsUpdate from '../../src/commands/applicants/update.js';
import ConfigGet from '../../src/commands/config/get.js';
import ConfigList from '../../src/commands/config/list.js';
import ConfigSet from '../../src/commands/config/set.js';
import ConfigUnset from '../../src/commands/config/unset.js';
import ConfigUse from '../../src/commands/config/use.js';
import ContractList from '../../src/commands/contract/list.js';
import ContractVerify from '../../src/commands/contract/verify.js';
import Demo from '../../src/commands/demo.js';
import DocumentsGet from '../../src/commands/documents/get.js';
import DocumentsUpload from '../../src/commands/documents/upload.js';
import KeysCreate from '../../src/commands/keys/create.js';
import KeysGet from '../../src/commands/keys/get.js';
import KeysList from '../../src/commands/keys/list.js';
import KeysRevoke from '../../src/commands/keys/revoke.js';
import KeysRotate from '../../src/commands/keys/rotate.js';
import KeysRotations from '../../src/commands/keys/rotations.js';
import ReportsCreate from '../../src/commands/reports/create.js';
import ReportsDelete from '../../src/commands/reports/delete.js';
import ReportsGet from '../../src/commands/reports/get.js';
import ReportsList from '../../src/commands/reports/list.js';
import ReportsOpen from '../../src/commands/reports/open.js';
import ReportsWait from '../../src/commands/reports/wait.js';
import SandboxCert from '../../src/commands/sandbox/cert.js';
import SandboxDeliveries from '../../src/commands/sandbox/deliveries/index.js';
import SandboxDeliveriesReplay from '../../src/commands/sandbox/deliveries/replay.js';
import SandboxKeys from '../../src/commands/sandbox/keys.js';
import SandboxStart from '../../src/commands/sandbox/start.js';
import WebhooksCheck from '../../src/commands/webhooks/check.js';
import WebhooksEvents from '../../src/commands/webhooks/events.js';
import WebhooksListen from '../../src/commands/webhooks/listen.js';
import WebhooksPrune from '../../src/commands/webhooks/prune.js';
import WebhooksReplay from '../../src/commands/webhooks/replay.js';
import WebhooksSign from '../../src/commands/webhooks/sign.js';
import WebhooksTrigger from '../../src/commands/webhooks/trigger.js';
import WebhooksVerify from '../../src/commands/webhooks/verify.js';
import { ExitCode } from '../../src/core/errors.js';
import type { Prompter } from '../../src/ui/prompter.js';
import { ranCommands, runInProcess } from '../helpers/in-process.js';
import { type InProcessSandbox, startSandboxInProcess } from '../helpers/sandbox.js';
import { isolatedEnv } from '../helpers/svc.js';

const SECRET = 'whsec_inprocesstestsecret0000000000';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

let sandbox: InProcessSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  sandbox = await startSandboxInProcess({ plan: 'enterprise', log: undefined });
  env = { ...sandbox.env, SVC_WEBHOOK_SECRET: SECRET };
});
afterAll(async () => {
  await sandbox.stop();
});

type Options = Partial<Parameters<typeof runInProcess>[2]>;
const run = (Command: Parameters<typeof runInProcess>[0], argv: string[], options: Options = {}) => runInProcess(Command, argv, { env, ...options });
const json = async <T = Record<string, unknown>>(Command: Parameters<typeof runInProcess>[0], argv: string[], options: Options = {}): Promise<T> => {
  const result = await run(Command, [...argv, '--json'], options);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
};
const APPLICANT = ['--given-names', 'Ana', '--surname', 'Silva', '--date-of-birth', '1990-01-02', '--nationality', 'PT'];
const REPORT = ['--destination', 'US', '--visa-type', 'tourist', '--purpose', 'Holiday'];

describe('applicants', () => {
  it('create, get and update, for people and as --json', async () => {
    const applicant = await json<{ id: string; nationality: string }>(ApplicantsCreate, [...APPLICANT.slice(0, -1), 'pt']);
    expect(applicant.nationality).toBe('PT');
    const shown = await run(ApplicantsGet, [applicant.id]);
    expect(shown.stdout).toContain(`id\t${applicant.id}\n`);
    const updated = await json<{ occupation: string }>(ApplicantsUpdate, [applicant.id, '--occupation', 'Teacher']);
    expect(updated.occupation).toBe('Teacher');
  });

  it('create asks a person for the required fields it lacks', async () => {
    const answers = ['Rui', 'Costa', '1985-05-05', 'pt'];
    const result = await run(ApplicantsCreate, ['--json'], { terminal: { columns: 80 }, prompter: promptsFrom(answers) });
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ given_names: 'Rui', surname: 'Costa', nationality: 'PT' });
  });

  it('get exits 5 for an applicant that does not exist, saying so', async () => {
    const result = await run(ApplicantsGet, ['app_doesnotexist0000']);
    expect(result.code).toBe(ExitCode.notFound);
    expect(result.stderr).toContain('Error: 404 not_found');
  });
});

/** Answers text questions in order, the first choice of every list, and each yes-or-no question with its default. */
function promptsFrom(answers: string[]): Prompter {
  const next = () => {
    const answer = answers.shift();
    if (answer === undefined) throw new Error('asked more than the test answers');
    return Promise.resolve(answer);
  };
  return {
    input: next,
    secret: next,
    select: (_message, choices) => Promise.resolve(choices[0]!),
    confirm: (_message, defaultAnswer = false) => Promise.resolve(defaultAnswer),
  };
}

describe('reports and documents', () => {
  let applicantId: string;
  beforeAll(async () => {
    applicantId = (await json<{ id: string }>(ApplicantsCreate, APPLICANT)).id;
  });

  it('create --wait, get, list, wait and delete', async () => {
    const report = await json<{ id: string; status: string }>(ReportsCreate, ['--applicant', applicantId, ...REPORT, '--wait']);
    expect(report.status).toBe('completed');
    const shown = await run(ReportsGet, [report.id], { terminal: { columns: 80 } });
    expect(shown.stdout).toMatch(/risk score +\d+ of 100/);
    const listed = await json<{ data: Array<{ id: string }> }>(ReportsList, ['--limit', '100']);
    expect(listed.data.map((item) => item.id)).toContain(report.id);
    expect((await json<{ id: string }>(ReportsWait, [report.id])).id).toBe(report.id);
    const refused = await run(ReportsDelete, [report.id]);
    expect(refused.code).toBe(ExitCode.usage);
    expect(await json(ReportsDelete, [report.id, '--yes'])).toMatchObject({ id: report.id, deleted: true });
    expect((await run(ReportsGet, [report.id])).code).toBe(ExitCode.notFound);
  });

  it('create offers a person the applicants they know, and open writes the report as a page', async () => {
    const result = await run(ReportsCreate, [...REPORT, '--json'], { terminal: { columns: 80 }, prompter: promptsFrom([]) });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { id: string; applicant_id: string };
    expect(report.applicant_id).toMatch(/^app_/);
    const output = join(env.HOME!, `${report.id}.html`);
    const opened = await run(ReportsOpen, [report.id, '--output', output], { env: { ...env, PATH: '/nonexistent' } });
    expect(opened.code, opened.stderr).toBe(0);
    expect(readFileSync(output, 'utf8')).toContain(report.id);
    expect(statSync(output).mode & 0o777).toBe(0o600);
  });

  it("shows times relative to the run's clock", async () => {
    const report = await json<{ id: string; created_at: string }>(ReportsCreate, ['--applicant', applicantId, ...REPORT]);
    const created = Date.parse(report.created_at);
    for (const [later, phrase] of [
      [3 * 3_600_000 + 60_000, '3 hours ago'],
      [2 * 86_400_000, '2 days ago'],
    ] as const) {
      const clock = { now: () => created + later, sleep: () => Promise.resolve() };
      const shown = await run(ReportsGet, [report.id], { terminal: { columns: 80 }, clock });
      expect(shown.stdout).toMatch(new RegExp(`created +${phrase}`, 'i'));
    }
  });

  it('get refuses an id without its prefix before sending anything', async () => {
    const result = await run(ReportsGet, ['12345', '--json']);
    expect(result.code).toBe(ExitCode.invalidInput);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'invalid_input' } });
  });

  it('documents upload and get', async () => {
    const file = join(env.HOME!, 'passport.pdf');
    writeFileSync(file, PDF);
    const uploaded = await json<{ id: string }>(DocumentsUpload, [file, '--type', 'passport', '--applicant', applicantId]);
    expect(uploaded.id).toMatch(/^doc_/);
    expect((await json<{ id: string }>(DocumentsGet, [uploaded.id])).id).toBe(uploaded.id);
    const missing = await run(DocumentsUpload, ['--type', 'passport']);
    expect(missing.code).toBe(ExitCode.usage);
  });
});

describe('keys', () => {
  it('create, get, list, revoke; rotate --dry-run and rotations', async () => {
    const keyFile = join(env.HOME!, 'made.key');
    const made = await json<{ id: string; secret_file: string }>(KeysCreate, ['--key-file', keyFile, '--name', 'in-process']);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^svc_test_/);
    expect((await json<{ id: string }>(KeysGet, [made.id])).id).toBe(made.id);
    expect((await json<{ data: Array<{ id: string }> }>(KeysList, [])).data.map((key) => key.id)).toContain(made.id);
    const plan = await json<{ dry_run: boolean; steps: unknown[] }>(KeysRotate, [made.id, '--dry-run', '--new-key-file', join(env.HOME!, 'new.key')]);
    expect(plan.dry_run).toBe(true);
    expect(plan.steps).toHaveLength(7);
    expect(await json(KeysRotations, [])).toEqual([]);
    expect(await json(KeysRevoke, [made.id, '--yes'])).toMatchObject({ id: made.id });
  });
});

describe('config', () => {
  it('set (the key from stdin), get, list, use and unset', async () => {
    const own = isolatedEnv();
    const local = (Command: Parameters<typeof runInProcess>[0], argv: string[], options: Options = {}) => run(Command, argv, { env: own, ...options });
    expect((await local(ConfigSet, ['base_url', 'https://staging.example.com', '--profile', 'staging'])).code).toBe(0);
    const set = await local(ConfigSet, ['api_key', '--profile', 'staging'], { stdin: 'svc_test_abcdefghijklmnopqrstuvwxyz012345\n' });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('svc_test_…2345');
    expect(set.stdout).not.toContain('abcdefghijklmnop');
    expect((await local(ConfigGet, ['base_url', '--profile', 'staging'])).stdout).toBe('https://staging.example.com\n');
    expect((await local(ConfigUse, ['staging'])).code).toBe(0);
    const listed = JSON.parse((await local(ConfigList, ['--json'])).stdout) as { current_profile: string };
    expect(listed.current_profile).toBe('staging');
    expect((await local(ConfigUnset, ['api_key'])).code).toBe(0);
    expect((await local(ConfigGet, ['api_key'])).code).not.toBe(0);
  });
});

describe('sandbox', () => {
  it('cert, keys, deliveries and replay of the running sandbox', async () => {
    const dataDir = ['--data-dir', sandbox.dataDir];
    expect((await run(SandboxCert, dataDir)).stdout.trim()).toBe(sandbox.caCert);
    const keys = await json<Array<{ role: string; secret: string }>>(SandboxKeys, dataDir);
    expect(keys.map((key) => key.role)).toContain('admin');
    expect(keys.every((key) => key.secret.includes('…'))).toBe(true);
    const deliveries = await json<unknown[]>(SandboxDeliveries, dataDir);
    expect(Array.isArray(deliveries)).toBe(true);
    const replay = await run(SandboxDeliveriesReplay, ['evt_doesnotexist', ...dataDir]);
    expect(replay.code).toBe(ExitCode.notFound);
  });

  it('start serves until Ctrl-C, then exits 130', async () => {
    const own = isolatedEnv();
    const result = await run(SandboxStart, ['--port', '0', '--json', '--quiet'], {
      env: own,
      whileRunning: async ({ stdout, interrupt }) => {
        await until(() => stdout().includes('"event":"ready"'));
        interrupt();
      },
    });
    expect(result.code, result.stderr).toBe(ExitCode.interrupted);
    expect(JSON.parse(result.stdout.split('\n')[0]!)).toMatchObject({ event: 'ready', profile: 'sandbox' });
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 10_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('webhooks', () => {
  let receiver: Server;
  let receiverUrl: string;
  const received: string[] = [];
  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push(body);
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it('sign and verify a payload from stdin', async () => {
    const body = '{"id":"evt_1","type":"report.created","created_at":"2026-11-25T00:00:00Z","data":{"id":"rep_1"}}';
    const header = (await json<{ header: string }>(WebhooksSign, [], { stdin: body })).header;
    const verified = await run(WebhooksVerify, ['--header', header, '--json'], { stdin: body });
    expect(verified.code, verified.stderr).toBe(0);
    const forged = await run(WebhooksVerify, ['--header', header], { stdin: body.replace('rep_1', 'rep_2') });
    expect(forged.code).toBe(ExitCode.verificationFailed);
  });

  it('trigger and check post signed events to a receiver', async () => {
    const sent = await json<Array<{ status: number }>>(WebhooksTrigger, ['report.completed', '--to', receiverUrl]);
    expect(sent[0]!.status).toBe(200);
    expect(received.at(-1)).toContain('"report.completed"');
    const checked = await run(WebhooksCheck, [receiverUrl]);
    // A receiver that takes anything fails the refusal checks: exit 16, each failure named.
    expect(checked.code).toBe(ExitCode.verificationFailed);
    expect(checked.stdout).toMatch(/^FAIL {2}/m);
  });

  it('listen stores a delivery; events shows it, replay forwards it, prune keeps what is recent', async () => {
    const store = join(env.HOME!, 'events.db');
    let url = '';
    const listened = await run(WebhooksListen, ['--port', '0', '--store', store, '--json'], {
      whileRunning: async ({ stdout, interrupt }) => {
        await until(() => stdout().includes('"event":"ready"'));
        url = (JSON.parse(stdout().split('\n')[0]!) as { url: string }).url;
        const triggered = await run(WebhooksTrigger, ['report.created', '--to', url]);
        expect(triggered.code, triggered.stderr).toBe(0);
        await until(() => stdout().includes('"event":"delivery"'));
        interrupt();
      },
    });
    expect(listened.code, listened.stderr).toBe(ExitCode.interrupted);
    const events = await json<Array<{ event_id: string; status: string }>>(WebhooksEvents, ['--store', store]);
    expect(events).toHaveLength(1);
    expect(events[0]!.status).toBe('accepted');
    const replayed = await json<{ status: number }>(WebhooksReplay, [events[0]!.event_id, '--store', store, '--forward-to', receiverUrl]);
    expect(replayed.status).toBe(200);
    // Events of the last 25 hours are kept: the service may still send their retries.
    const refused = await run(WebhooksPrune, ['--store', store, '--before', '2100-01-01T00:00:00Z']);
    expect(refused.code).toBe(ExitCode.usage);
    const pruned = await json<{ deleted: number }>(WebhooksPrune, ['--store', store, '--before', '2000-01-01T00:00:00Z']);
    expect(pruned.deleted).toBe(0);
    expect(await json<unknown[]>(WebhooksEvents, ['--store', store])).toHaveLength(1);
  });
});

describe('contract and demo', () => {
  it('contract list shows the catalogue; contract verify judges the sandbox on the checks asked for', async () => {
    const checks = await json<Array<{ id: string }>>(ContractList, []);
    expect(checks.map((check) => check.id)).toContain('reports.criteria-weights');
    const verified = await run(ContractVerify, ['--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--only', 'reports.criteria-weights', '--json'], {
      env: { ...env, SVC_API_KEY: sandbox.keys.test },
    });
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ verdict: 'conforms', passed: 1 });
  });

  it("contract verify takes the connection and the kit's keys from --profile or SVC_PROFILE, as every command does", async () => {
    const own = isolatedEnv();
    const set = async (name: string, value: string) => {
      const secret = !['base_url', 'ca_cert'].includes(name);
      const result = await run(ConfigSet, secret ? [name, '--profile', 'ci'] : [name, value, '--profile', 'ci'], {
        env: own,
        ...(secret && { stdin: `${value}\n` }),
      });
      expect(result.code, result.stderr).toBe(0);
    };
    await set('base_url', sandbox.url);
    await set('ca_cert', sandbox.caCert);
    await set('api_key', sandbox.keys.test);
    await set('read_only_key', sandbox.keys.read_only);
    const only = ['--only', 'reports.criteria-weights,auth.read-only-can-read', '--json'];
    for (const selection of [['--profile', 'ci'], []]) {
      const verified = await run(ContractVerify, [...selection, ...only], { env: selection.length > 0 ? own : { ...own, SVC_PROFILE: 'ci' } });
      expect(verified.code, verified.stderr).toBe(0);
      expect(JSON.parse(verified.stdout)).toMatchObject({ verdict: 'conforms', passed: 2, skipped: 0 });
      expect(verified.stderr).toContain('The keys of the profile "ci", whose base URL this is');
      expect(verified.stdout + verified.stderr).not.toContain(sandbox.keys.read_only);
    }
  });

  it('demo runs the whole API once on a sandbox of its own', async () => {
    const result = await run(Demo, ['--json'], { env: isolatedEnv() });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'completed' });
  });
});

describe('this file', () => {
  it('ran every command of src/commands', async () => {
    const commands = readdirSync(new URL('../../src/commands/', import.meta.url), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    const modules = await Promise.all(commands.map(async (file) => ({ file, module: (await import(`../../src/commands/${file}`)) as { default: unknown } })));
    const notRun = modules.filter(({ module }) => !ranCommands.has(module.default as never)).map(({ file }) => file);
    expect(notRun).toEqual([]);
  });
});
