/**
 * Every example of every command's help, pasted as a user would: the real `svc` on PATH, run by bash
 * in a home of its own whose current profile is an embedded sandbox (started as the README says),
 * CI=true so that nothing prompts; those for a person at a terminal run in one and are answered. The examples come from the oclif manifest, so a new example is run
 * too; what an example needs (an id that exists, a file, a receiver) is prepared per placeholder
 * below, and an example with a placeholder nobody prepares fails.
 */
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Config, Flags, Parser } from '@oclif/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathsOf } from '../../src/config/paths.js';
import { ExitCode } from '../../src/core/errors.js';
import { buildMrz } from '../../src/sandbox/mrz.js';
import { defaultStorePath } from '../../src/webhooks/sqlite-store.js';
import { HANG_MS } from '../helpers/hang.js';
import { type RunningListen, startListen } from '../helpers/listen.js';
import { type Choices, type OtherImplementation, startOtherImplementation } from '../helpers/other-implementation.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { freePort, json, startServer, type TestServer } from '../helpers/server.js';
import { isolatedEnv, runSvc, SVC_BIN } from '../helpers/svc.js';
import { KEYS, startInTerminal, type TerminalSession } from '../helpers/terminal.js';

interface Example {
  id: string;
  description: string | undefined;
  command: string;
}

const manifest = JSON.parse(readFileSync(new URL('../../oclif.manifest.json', import.meta.url), 'utf8')) as {
  commands: Record<string, { examples?: Array<string | { description: string; command: string }> }>;
};
const EXAMPLES: Example[] = Object.entries(manifest.commands).flatMap(([id, command]) =>
  (command.examples ?? []).map((example) => {
    const { description, command: text } = typeof example === 'string' ? { description: undefined, command: example } : example;
    return { id, description, command: text.replaceAll('<%= config.bin %>', 'svc') };
  }),
);

/** Commands that run until stopped: each is run until it says it is ready, then interrupted (exit 130, as the README's table says). */
const UNTIL_STOPPED: Record<string, RegExp> = {
  'webhooks:listen': /Press Ctrl-C to stop|"event":"ready"/,
  'sandbox:start': /Press Ctrl-C to stop|"event":"ready"/,
};

/**
 * Commands whose examples change what the others rely on (the current profile's settings, the
 * sandbox profile's base URL), each run with a copy of the configuration or a home of its own.
 */
const OWN_CONFIG = ['config:set', 'config:unset', 'config:use'];
const OWN_HOME = ['sandbox:start'];

/**
 * Examples that cannot work here, each with why; the test expects them to fail, so that one that
 * starts working must leave this list.
 */
const checkout = fileURLToPath(new URL('../..', import.meta.url));

const CANNOT_RUN_HERE: Record<string, string> = {
  'svc contract verify --base-url https://staging.example.com --fixtures fixtures.yaml --webhook-port 4010 --webhook-tls --revocable-key-id key_… --json':
    'the sandbox delivers its webhooks in plain HTTP, and has no dashboard key to revoke',
  'SVC_RATE_LIMIT_KEY=svc_test_… svc contract verify --base-url https://staging.example.com':
    "it exhausts the rate-limit window of its key's workspace, which the other examples share here, then waits it out",
  "svc keys rotate key_123 --new-key-file /run/secrets/svc.key --deploy-cmd './deploy-key.sh' --quiet-period 15m --timeout 2h --yes --json":
    'it needs a deploy script and waits 15 quiet minutes',
  "svc keys rotate key_123 --new-key-file ./dashboard.key --new-key-id key_456 --old-key-file ./app.key --deploy-cmd './deploy-key.sh' --drain-check-cmd './no-traffic.sh key_123' --yes --json":
    'it needs a deploy script, a drain check and a dashboard key',
  'svc keys rotate key_123 --new-key-file ./new.key': 'a person confirms the deploy at a terminal; with CI=true it wants --deploy-cmd or --yes',
  'svc keys rotate --resume': 'it needs a rotation that was stopped',
  'svc keys rotate --abort rot_0123456789abcdef0123': 'it needs a rotation that was stopped',
};

/**
 * Examples for a service that chose otherwise where the specification leaves the choice open (the
 * upload's encoding): each runs against an implementation that chose so.
 */
const ELSEWHERE: Record<string, Partial<Choices>> = {
  'svc documents upload passport.pdf --type passport --file-field upload --type-field kind': { upload: 'multipart' },
  'svc documents upload passport.pdf --type passport --encoding json --file-field content --type-field kind --field file_name={{file_name}}': {
    upload: 'json',
  },
  'svc documents upload passport.pdf --encoding raw --query type=passport --query applicant_id=app_123': { upload: 'query' },
};
const elsewhere = new Map<string, OtherImplementation>();

/** Answers `question` with `answer` and Enter, as a person types them. */
async function answer(session: TerminalSession, question: string, text: string): Promise<void> {
  await session.waitFor(question);
  session.type(`${text}${KEYS.enter}`);
}

/**
 * Examples for a person at a terminal, who answers their questions: each runs in a pseudo-terminal of
 * 80 columns with CI unset, answered so.
 */
const AT_A_TERMINAL: Record<string, (session: TerminalSession) => Promise<void>> = {
  'svc applicants create': async (session) => {
    await answer(session, 'Given names, as in the passport:', 'Ana Maria');
    await answer(session, 'Surname, as in the passport:', 'Silva');
    await answer(session, 'Date of birth (YYYY-MM-DD):', '1990-04-12');
    await answer(session, 'Nationality, two letters', 'PT');
    await answer(session, 'Add optional details', 'n');
  },
  'svc reports create': async (session) => {
    // The first choice: the newest applicant svc created.
    await session.waitFor('Applicant:');
    await answer(session, 'navigate', '');
    await answer(session, 'Destination, two letters', 'DE');
    await answer(session, 'Visa type:', '');
    await answer(session, 'Purpose of travel:', 'Two weeks in Berlin');
  },
  'svc reports delete rep_123': (session) => answer(session, 'Delete report', 'y'),
  'svc keys revoke key_123': (session) => answer(session, 'Revoke key_', 'y'),
};

/** What a placeholder looks like: an id ending in 123 or 456, or text cut with an ellipsis. */
const PLACEHOLDER = /\b[a-z]+_(?:\w*123|456)\b|…/;

/** Placeholders of the examples, and what each becomes here. Placeholders not listed make the example fail. */
type Placeholders = Record<string, () => string | Promise<string>>;

let home: string;
let env: Record<string, string>;
let receiver: TestServer;
let sandbox: RunningSandbox;
let listener: RunningListen | undefined;
let placeholders: Placeholders;
let postgres: TestPostgres | undefined;
/** The port the sandbox delivers its events to: the kit's of `contract verify --webhook-port`. */
let kitPort: number;
let kitPortTaken: Promise<unknown> = Promise.resolve();

/**
 * Runs the examples that use the sandbox's subscriber one at a time: the kit listens on its port,
 * and a replay to the subscriber needs someone there (a receiver that answers 200).
 */
function onKitPort<T>(id: string, run: () => Promise<T>): Promise<T> {
  const turn = kitPortTaken.then(async () => {
    if (id !== 'sandbox:deliveries:replay') return run();
    const subscriber = createServer((_request, response) => response.end());
    await new Promise<void>((resolve) => subscriber.listen(kitPort, '127.0.0.1', resolve));
    try {
      return await run();
    } finally {
      await new Promise((resolve) => subscriber.close(resolve));
    }
  });
  kitPortTaken = turn.catch(() => undefined);
  return turn;
}
const USE_KIT_PORT = ['contract:verify', 'sandbox:deliveries:replay'];

/** Placeholders that stand for something else in some commands: `evt_123` of `sandbox deliveries replay` is a sandbox event. */
let placeholdersOf: Record<string, Placeholders>;

async function svcJson<T>(args: string[]): Promise<T> {
  const result = await runSvc([...args, '--json'], { env });
  expect(result.code, `svc ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout) as T;
}

beforeAll(async () => {
  const base = isolatedEnv({ CI: 'true' });
  home = base.HOME!;
  const bin = join(home, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'svc'), `#!/bin/sh\nexec '${process.execPath}' '${SVC_BIN}' "$@"\n`);
  chmodSync(join(bin, 'svc'), 0o755);
  writeFileSync(join(bin, 'pbpaste'), `#!/bin/sh\nexec cat '${join(home, 'body.json')}'\n`);
  chmodSync(join(bin, 'pbpaste'), 0o755);
  env = { ...base, PATH: `${bin}:${base.PATH}` };

  receiver = await startServer((_request, response) => json(response, 200, { received: true }));
  for (const [command, choices] of Object.entries(ELSEWHERE)) elsewhere.set(command, await startOtherImplementation(choices));
  kitPort = await freePort();
  // A port of its own: with --port 0 the sandbox once took the kit's port, just released by freePort.
  sandbox = await startSandboxProcess(['--port', String(await freePort()), '--plan', 'enterprise', '--webhook-url', `http://127.0.0.1:${kitPort}/`], env);
  // The sandbox's webhook secret in the environment, as a user who read `svc sandbox keys --reveal` sets it.
  env.SVC_WEBHOOK_SECRET = sandbox.keys.webhook_secret;
  // The key of `printf %s "$KEY" | svc config set api_key`.
  env.KEY = sandbox.keys.test;

  const work = (name: string) => join(home, name);
  const applicant = await svcJson<{ id: string }>([
    'applicants',
    'create',
    '--given-names',
    'Erika',
    '--surname',
    'Mustermann',
    '--date-of-birth',
    '1988-03-02',
    '--nationality',
    'AT',
    '--passport-number',
    'C01X00T47',
    '--passport-expiry',
    '2031-08-31',
  ]);
  const { line1, line2 } = buildMrz({
    document_number: 'C01X00T47',
    nationality: 'AT',
    surname: 'Mustermann',
    given_names: 'Erika',
    date_of_birth: '1988-03-02',
    expiry_date: '2031-08-31',
    sex: 'F',
  });
  writeFileSync(work('passport.pdf'), `${line1}\n${line2}\n`);
  const document = await svcJson<{ id: string }>(['documents', 'upload', work('passport.pdf'), '--type', 'passport', '--applicant', applicant.id]);
  writeFileSync(work('profile.json'), JSON.stringify({ given_names: 'Ana', surname: 'Silva', date_of_birth: '1990-04-12', nationality: 'PT' }));
  writeFileSync(work('changes.json'), JSON.stringify({ occupation: 'Engineer' }));
  const event = { id: 'evt_example1', type: 'report.completed', created_at: '2026-01-01T00:00:00Z', data: { id: 'rep_example1', risk_score: 27 } };
  writeFileSync(work('event.json'), JSON.stringify(event));
  writeFileSync(work('body.json'), JSON.stringify(event));
  writeFileSync(work('statement.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]));
  const signature = (await runSvc(['webhooks', 'sign', '--payload-file', work('body.json'), '--timestamp', '1767225600'], { env })).stdout.trim();
  // The header of `pbpaste | svc webhooks verify --header "$SIG"`.
  env.SIG = signature;
  // `svc webhooks listen` with the sandbox's secret, the receiver of the examples that send to one: it checks what they send.
  listener = await startListen([], env, defaultStorePath(pathsOf(env).dataDir));
  const listenerUrl = listener.url.replace(/\/$/, '');
  const triggered = await runSvc(['webhooks', 'trigger', 'report.completed', '--to', `${listenerUrl}/hooks`], { env });
  expect(triggered.code, triggered.stderr).toBe(0);
  const stored = await svcJson<Array<{ event_id: string }>>(['webhooks', 'events']);
  copyFileSync(sandbox.caCert, work('cert.pem'));
  copyFileSync(join(sandbox.caCert, '..', 'key.pem'), work('key.pem'));

  const report = async () =>
    (
      await svcJson<{ id: string }>([
        'reports',
        'create',
        '--applicant',
        applicant.id,
        '--destination',
        'DE',
        '--visa-type',
        'tourist',
        '--purpose',
        'Two weeks in Berlin',
        '--wait',
      ])
    ).id;
  const freshPath = (name: string) => join(mkdtempSync(join(home, 'secrets-')), name);
  const key = async () => (await svcJson<{ id: string }>(['keys', 'create', '--name', 'example', '--key-file', freshPath('example.key')])).id;
  const sandboxEvent = async () => {
    await report();
    return (await svcJson<Array<{ event_id: string }>>(['sandbox', 'deliveries']))[0]!.event_id;
  };
  placeholdersOf = { 'sandbox:deliveries:replay': { evt_123: sandboxEvent } };
  placeholders = {
    app_123: () => applicant.id,
    doc_123: () => document.id,
    rep_123: report,
    key_123: key,
    '/run/secrets/svc.key': () => freshPath('svc.key'),
    'svc_test_…': () => '"$KEY"',
    't=1767225600,v1=5257a8…': () => signature,
    evt_123: () => stored[0]!.event_id,
    // The secret from the environment, not in bash's argv.
    'SVC_WEBHOOK_SECRET=…': () => 'SVC_WEBHOOK_SECRET="$SVC_WEBHOOK_SECRET"',
    'https://staging.example.com/hooks': () => `${listenerUrl}/hooks`,
    'https://127.0.0.1:8443': () => sandbox.url,
    'https://staging.example.com': () => sandbox.url,
    'http://127.0.0.1:3000': () => listenerUrl,
    'http://127.0.0.1:4000': () => receiver.url,
    '4010': () => String(kitPort),
    // A PostgreSQL server of the test's own, its URL (and password) from the environment, not in bash's argv.
    'postgres://…': () => {
      postgres ??= startPostgres();
      env.PG_URL = postgres.url('examples');
      return '"$PG_URL"';
    },
    // Listening on every interface, as a fleet does behind its load balancer, is loopback only here.
    '--host 0.0.0.0': () => '--host 127.0.0.1',
  };
}, 4 * HANG_MS);

// Each stop waits up to HANG_MS, PostgreSQL's up to 60 s.
afterAll(async () => {
  try {
    await Promise.all([listener?.stop(), sandbox?.stop()]);
  } finally {
    postgres?.destroy();
    await receiver?.close();
    await Promise.all([...elsewhere.values()].map((implementation) => implementation.close()));
  }
}, 4 * HANG_MS);

function environmentFor(id: string, command: string): Record<string, string> {
  const implementation = elsewhere.get(command);
  if (implementation) return { ...env, SVC_BASE_URL: implementation.url, SVC_API_KEY: 'svc_test_otherimplementation0123456789ab' };
  if (OWN_HOME.includes(id)) return { ...isolatedEnv({ CI: 'true' }), PATH: env.PATH! };
  if (!OWN_CONFIG.includes(id)) return env;
  const config = mkdtempSync(join(home, 'config-'));
  cpSync(env.XDG_CONFIG_HOME!, config, { recursive: true });
  return { ...env, XDG_CONFIG_HOME: config };
}

/** The example as pasted here: each placeholder replaced by what exists in this sandbox. */
async function prepared(example: Example): Promise<string> {
  let command = example.command;
  for (const [placeholder, value] of Object.entries({ ...placeholders, ...placeholdersOf[example.id] })) {
    const pattern = new RegExp(`${placeholder.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?![\\w.])`, 'g');
    if (pattern.test(command)) command = command.replace(pattern, await value());
  }
  return UNTIL_STOPPED[example.id] ? onAnyPort(command) : command;
}

/**
 * A command that listens, on a port the system picks (its ready line says which): its own port, or
 * the default (4000, 8443), may be another program's on this machine, or another example's.
 */
function onAnyPort(command: string): string {
  return /--port \d+/.test(command) ? command.replace(/--port \d+/, '--port 0') : `${command} --port 0`;
}

interface Run {
  code: number | null;
  output: string;
}

/** Runs a command line with bash, in the home's directory; with `ready`, interrupts it once its output matches. */
function runPasted(command: string, exampleEnv: Record<string, string>, ready?: RegExp): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', ready ? command.replace(/(^|\s)svc\s/, '$1exec svc ') : command], {
      cwd: exampleEnv.HOME,
      env: exampleEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let interrupted = false;
    const hung = setTimeout(() => child.kill('SIGKILL'), 4 * HANG_MS);
    const take = (chunk: string) => {
      output += chunk;
      if (ready && !interrupted && ready.test(output)) {
        interrupted = true;
        child.kill('SIGINT');
      }
    };
    child.stdout.setEncoding('utf8').on('data', take);
    child.stderr.setEncoding('utf8').on('data', take);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(hung);
      resolve({ code, output });
    });
  });
}

describe.concurrent('every example of every command, pasted', () => {
  it('has examples to run', () => expect(EXAMPLES.length).toBeGreaterThan(50));

  for (const example of EXAMPLES) {
    const reason = CANNOT_RUN_HERE[example.command];
    if (reason) {
      // Parsed as oclif parses it, so that a renamed or removed flag fails here as it would for whoever pastes it.
      it(`${example.command} parses (cannot run here: ${reason})`, async () => {
        const Command = await (await Config.load({ root: checkout })).findCommand(example.id, { must: true }).load();
        // The words after `svc` and the command's, the variables set before it (`SVC_…=… svc …`) left aside.
        const words = [...example.command.matchAll(/'([^']*)'|(\S+)/g)]
          .map((match) => match[1] ?? match[2]!)
          .filter((_word, index, all) => all.indexOf('svc') < index)
          .slice(example.id.split(':').length);
        const parsed = await Parser.parse(words, {
          flags: { ...Command.baseFlags, ...Command.flags, ...(Command.enableJsonFlag && { json: Flags.boolean() }) },
          args: Command.args ?? {},
          strict: Command.strict ?? true,
        });
        expect(parsed.nonExistentFlags ?? []).toEqual([]);
      });
      continue;
    }
    it(example.command, { timeout: 8 * HANG_MS }, async () => {
      const command = await prepared(example);
      expect(command, 'a placeholder of this example has no fixture here: add one to `placeholders`').not.toMatch(PLACEHOLDER);
      const conversation = AT_A_TERMINAL[example.command];
      if (conversation) {
        const session = startInTerminal(command.split(' ').slice(1), env);
        await conversation(session);
        const { code, screen } = await session.exited();
        return void expect(code, `${command}\n${screen}`).toBe(ExitCode.ok);
      }
      const ready = UNTIL_STOPPED[example.id];
      const pasted = () => runPasted(command, environmentFor(example.id, example.command), ready);
      const { code, output } = await (USE_KIT_PORT.includes(example.id) ? onKitPort(example.id, pasted) : pasted());
      expect(code, `${command}\n${output}`).toBe(ready ? ExitCode.interrupted : ExitCode.ok);
    });
  }
});
