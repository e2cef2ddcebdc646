/**
 * Every kind of output for people at an 80-column terminal keeps each URL, path and setting name
 * whole, as a person copies or clicks it: tables, notes, warnings, errors and their hints, a command's
 * lines on stdout, questions, the lines of a command that runs until stopped, and help. The real
 * `svc` in a pseudo-terminal, against the real sandbox, with paths and URLs of the length an
 * operator's have (some longer than a line: those get a line of their own, wider than the terminal,
 * as gh leaves a long URL). What fits and what ids do: terminal-width.test.ts.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/config-file.js';
import { pathsOf } from '../../src/config/paths.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { brokenTokens, finalScreen, runInTerminal, startInTerminal, widerThan } from '../helpers/terminal.js';

const COLUMNS = 80;
const SECRET = 'whsec_whole_words_test_secret';

const manifest = JSON.parse(readFileSync('oclif.manifest.json', 'utf8')) as {
  commands: Record<string, { flags: Record<string, { env?: string }> }>;
};

/** Setting names a person types: every flag, every SVC_ variable help names, every setting of a profile. */
const SETTING_NAMES = [
  ...new Set([
    ...Object.values(manifest.commands).flatMap((command) =>
      Object.entries(command.flags).flatMap(([name, flag]) => [`--${name}`, ...(flag.env ? [flag.env] : [])]),
    ),
    ...(JSON.stringify(manifest).match(/SVC_[A-Z_]+[A-Z]/g) ?? []),
    ...Object.keys(SETTINGS),
  ]),
];

/** The paths and URLs help shows (`$XDG_STATE_HOME/svc/rotations/<rotation-id>.json`, `/v1/keys/{id}`). */
const HELP_PATHS = [
  ...new Set(
    (JSON.stringify(manifest).match(/(?:https?:\/\/|[$~.]?\/?)[\w${}<>.*:@%+=-]+(?:\/[\w${}<>.*:@%+=-]+)+/g) ?? []).filter((path) => path.length >= 10),
  ),
];

let env: Record<string, string>;
let sandbox: RunningSandbox;
let receiver: Receiver;
/** The sandbox's data directory, where an operator keeps it: its path is longer than a line. */
let dataDir: string;
/** A directory whose paths fit a line, but seldom what is left of one. */
let deploy: string;
let longUrl: string;
const gatewayUrl = 'https://127.0.0.1:9/gateways/visa-report-service/production/eu-central-1/tenant-billing-worker';

beforeAll(async () => {
  env = isolatedEnv();
  dataDir = join(env.HOME!, 'srv', 'visa-report-service', 'production', 'billing-worker', 'sandbox-data-directory-of-the-ci-job');
  deploy = join(env.HOME!, 'deployments', 'production', 'billing-worker');
  mkdirSync(deploy, { recursive: true });
  receiver = await startReceiver();
  longUrl = `${receiver.url}/hooks/visa-reports/production/billing-worker/report-events/receiver`;
  sandbox = await startSandboxProcess(['--quiet', '--webhook-url', longUrl, '--webhook-secret', SECRET], env, dataDir);
  env = { ...sandbox.env, SVC_API_KEY: sandbox.keys.test, SVC_ADMIN_KEY: sandbox.keys.admin, SVC_WEBHOOK_SECRET: SECRET };
});
afterAll(async () => {
  await sandbox.stop();
  await receiver.close();
});

/** What is wrong with a screen: a token shown broken across lines, a line wider than the terminal that is not one word alone. */
function misfits(lines: string[], tokens: string[]): string[] {
  const drawn = lines.flatMap((line) => line.split('\r'));
  return [...brokenTokens(drawn, tokens).map((token) => `broken: ${token}`), ...widerThan(drawn, COLUMNS).map((line) => `wider: ${line}`)];
}

describe(`at an ${COLUMNS}-column terminal, no URL, path or setting name is broken`, () => {
  it('in tables, notes, warnings, errors and hints, and the lines commands print', { timeout: 300_000 }, async () => {
    const created = await runSvc(
      ['applicants', 'create', '--given-names', 'Ana', '--surname', 'Silva', '--date-of-birth', '1990-04-12', '--nationality', 'PT', '--json'],
      {
        env,
      },
    );
    const applicant = (JSON.parse(created.stdout) as { id: string }).id;
    const made = await runSvc(
      ['reports', 'create', '--applicant', applicant, '--destination', 'DE', '--visa-type', 'tourist', '--purpose', 'Visit', '--wait', '--json'],
      {
        env,
      },
    );
    const reportId = (JSON.parse(made.stdout) as { id: string }).id;
    await receiver.waitFor((received) => received.length > 0);
    const testKey = (JSON.parse((await runSvc(['keys', 'list', '--json'], { env })).stdout) as { data: Array<{ id: string; prefix_hint: string }> }).data.find(
      (key) => sandbox.keys.test.endsWith(key.prefix_hint.split('…')[1]!),
    )!;
    const runs: Array<{ args: string[]; code: number; env?: Record<string, string> }> = [
      { args: ['config', 'list'], code: 0 },
      { args: ['config', 'get', 'ca_cert'], code: 0 },
      { args: ['config', 'set', 'base_url', gatewayUrl, '--profile', 'gateway'], code: 0 },
      // The profile's key is the sandbox's, not the gateway's: the error and its hint name the URL, and the settings to save for it.
      { args: ['reports', 'list', '--base-url', gatewayUrl], code: 10, env: sandbox.env },
      { args: ['sandbox', 'cert', '--data-dir', dataDir], code: 0 },
      { args: ['sandbox', 'keys', '--data-dir', dataDir], code: 0 },
      { args: ['sandbox', 'deliveries', '--data-dir', dataDir], code: 0 },
      { args: ['keys', 'create', '--name', 'billing worker', '--key-file', join(deploy, 'billing-worker.key')], code: 0 },
      { args: ['keys', 'rotate', testKey.id, '--new-key-file', join(dataDir, 'rotated.key'), '--dry-run'], code: 0 },
      { args: ['reports', 'open', reportId, '--output', join(dataDir, 'report.html')], code: 0 },
      { args: ['webhooks', 'trigger', 'report.completed', '--to', longUrl], code: 0 },
    ];
    const tokens = [
      dataDir,
      sandbox.caCert,
      join(deploy, 'billing-worker.key'),
      join(dataDir, 'rotated.key'),
      join(dataDir, 'report.html'),
      longUrl,
      gatewayUrl,
      pathsOf(env).configFile,
      ...SETTING_NAMES,
    ];
    const found: string[] = [];
    for (const { args, code, env: runEnv } of runs) {
      const shown = await runInTerminal(args, runEnv ?? env, COLUMNS);
      const wrong = [...(shown.code === code ? [] : [`exit ${shown.code}, not ${code}`]), ...misfits(shown.lines, tokens)];
      if (wrong.length) found.push(`svc ${args.join(' ')}\n  ${wrong.join('\n  ')}\n${shown.lines.join('\n')}`);
    }
    expect(found.join('\n\n'), 'every output keeps them whole').toBe('');
  });

  it('in a question, and in the lines of commands that run until stopped', { timeout: 120_000 }, async () => {
    const keyFile = join(deploy, 'rotated-at-the-terminal.key');
    const oldKey = JSON.parse((await runSvc(['keys', 'create', '--name', 'asked', '--key-file', join(deploy, 'asked.key'), '--json'], { env })).stdout) as {
      id: string;
    };
    const asked = startInTerminal(['keys', 'rotate', oldKey.id, '--new-key-file', keyFile], env, COLUMNS);
    await asked.waitFor('(y/N)');
    asked.type('n\r');
    const question = await asked.exited();

    const store = join(dataDir, 'events.db');
    const listening = startInTerminal(['webhooks', 'listen', '--port', '0', '--store', store, '--forward-to', longUrl], env, COLUMNS);
    await listening.waitFor('Press Ctrl-C to stop.');
    listening.type('\u0003');
    const listened = await listening.exited();

    const otherDir = join(dataDir, 'second-sandbox');
    const starting = startInTerminal(['sandbox', 'start', '--port', '0', '--data-dir', otherDir], env, COLUMNS);
    await starting.waitFor('Press Ctrl-C to stop.');
    starting.type('\u0003');
    const started = await starting.exited();

    const tokens = [keyFile, store, longUrl, otherDir, join(otherDir, 'tls', 'cert.pem'), ...SETTING_NAMES];
    const found: string[] = [];
    for (const [what, run] of [
      ['keys rotate, its question', question],
      ['webhooks listen', listened],
      ['sandbox start', started],
    ] as const) {
      const lines = await finalScreen(run.raw, COLUMNS);
      const wrong = misfits(lines, tokens);
      if (wrong.length) found.push(`${what}\n  ${wrong.join('\n  ')}\n${lines.join('\n')}`);
    }
    expect(found.join('\n\n'), 'every output keeps them whole').toBe('');
  });

  it('in the help of every command', { timeout: 300_000 }, async () => {
    const found: string[] = [];
    for (const args of [[], ['--help'], ...Object.keys(manifest.commands).map((id) => [...id.split(':'), '--help'])]) {
      const shown = await runInTerminal(args, isolatedEnv(), COLUMNS);
      const broken = brokenTokens(shown.lines, [...SETTING_NAMES, ...HELP_PATHS]);
      if (broken.length) found.push(`svc ${args.join(' ')}: ${broken.join(', ')}`);
    }
    expect(found.join('\n'), 'help keeps them whole').toBe('');
  });
});
