/**
 * What a person sees at an 80-column terminal: the real `svc` in a pseudo-terminal against the
 * real sandbox; no line is wider than the terminal, and what the lines hold is still there.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Applicant, Report } from '../../src/api/types.js';
import { type RunningListen, startListen } from '../helpers/listen.js';
import { type RunningSandbox, startSandboxProcess } from '../helpers/sandbox.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { brokenIds, brokenTokens, runInTerminal, startInTerminal, widerThan } from '../helpers/terminal.js';

const COLUMNS = 80;
const SECRET = 'whsec_terminal_width_test_secret';
let listen: RunningListen;
let sandbox: RunningSandbox;
let applicant: Applicant;
let report: Report;

async function parsed<T>(args: string[]): Promise<T> {
  const result = await runSvc([...args, '--json'], { env: sandbox.env });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

beforeAll(async () => {
  listen = await startListen(['--secret', SECRET], isolatedEnv());
  sandbox = await startSandboxProcess(['--quiet', '--webhook-url', listen.url, '--webhook-secret', SECRET]);
  const profile = join(sandbox.env.HOME!, 'profile.json');
  writeFileSync(
    profile,
    JSON.stringify({
      given_names: 'Erika Johanna Theresia',
      surname: 'Mustermann-Oberhuber',
      date_of_birth: '1988-03-02',
      nationality: 'AT',
      occupation: 'Senior procurement engineer for heavy industrial equipment',
    }),
  );
  applicant = await parsed<Applicant>(['applicants', 'create', '--file', profile, '--monthly-income', '5200', '--currency', 'EUR']);
  report = await parsed<Report>([
    'reports',
    'create',
    '--applicant',
    applicant.id,
    '--destination',
    'DE',
    '--visa-type',
    'business',
    '--purpose',
    'Trade fair in Hanover, then two weeks of meetings with suppliers in Stuttgart, Munich and Nuremberg',
    '--wait',
  ]);
});
afterAll(async () => {
  await sandbox.stop();
  await listen.stop();
});

describe(`at a ${COLUMNS}-column terminal`, () => {
  it('reports get draws the criteria within the width and shows the fields as aligned lines', async () => {
    const shown = await runInTerminal(['reports', 'get', report.id], sandbox.env, COLUMNS);
    expect(shown.code).toBe(0);
    expect(widerThan(shown.lines, COLUMNS)).toEqual([]);
    expect(shown.lines).toContain(`id           ${report.id}`);
    expect(shown.lines).toContain('Criteria, by weighted contribution to the risk score');
    // Every criterion's label starts the line of its bar.
    for (const criterion of report.criteria ?? []) expect(shown.lines.some((line) => line.startsWith(`${criterion.label}  `))).toBe(true);
  });

  it('reports list, applicants get, keys list, webhooks events and sandbox deliveries fit too', async () => {
    await listen.waitFor((lines) => lines.some((line) => line.type === 'report.completed'));
    const env = { ...sandbox.env, SVC_API_KEY: sandbox.keys.test, SVC_ADMIN_KEY: sandbox.keys.admin, SVC_WEBHOOK_SECRET: SECRET };
    const commands = [
      ['reports', 'list'],
      ['applicants', 'get', applicant.id],
      ['keys', 'list'],
      ['webhooks', 'events', '--store', listen.store],
      ['sandbox', 'deliveries', '--data-dir', sandbox.dataDir],
    ];
    for (const args of commands) {
      const shown = await runInTerminal(args, env, COLUMNS);
      expect(shown.code, `${args.join(' ')}\n${shown.lines.join('\n')}`).toBe(0);
      expect(widerThan(shown.lines, COLUMNS), args.join(' ')).toEqual([]);
    }
  });

  it('reports list keeps every id whole, leaving out the columns that do not fit and saying which', async () => {
    const shown = await runInTerminal(['reports', 'list'], sandbox.env, COLUMNS);
    expect(shown.lines.some((line) => line.startsWith(`${report.id}  completed  DE`))).toBe(true);
    expect(shown.lines.join(' ')).toMatch(/\(applicant, visa type left out at 80 columns: a wider terminal or\s+--json shows them\)/);
    const wide = await runInTerminal(['reports', 'list'], sandbox.env, 140);
    expect(wide.lines.some((line) => line.startsWith(`${report.id}  completed  ${applicant.id}  DE`))).toBe(true);
    expect(wide.lines.join('\n')).not.toContain('left out');
  });

  it('webhooks events and sandbox deliveries keep event ids whole', async () => {
    const eventIds = listen.lines.filter((line) => line.type === 'report.completed').map((line) => String(line.event_id));
    expect(eventIds.length).toBeGreaterThan(0);
    for (const args of [
      ['webhooks', 'events', '--store', listen.store],
      ['sandbox', 'deliveries', '--data-dir', sandbox.dataDir],
    ]) {
      const shown = await runInTerminal(args, sandbox.env, COLUMNS);
      for (const id of eventIds)
        expect(
          shown.lines.some((line) => line.split(/\s+/).includes(id)),
          `${args[0]} ${args[1]}: ${id}\n${shown.lines.join('\n')}`,
        ).toBe(true);
    }
  });

  it('svc demo, the first command a newcomer runs, fits from its first line to its last', async () => {
    const shown = await runInTerminal(['demo'], sandbox.env, COLUMNS);
    expect(shown.code).toBe(0);
    expect(widerThan(shown.lines, COLUMNS)).toEqual([]);
    expect(shown.lines.some((line) => line.startsWith('✓ webhook   report.completed'))).toBe(true);
    expect(shown.lines).toContain('Recommendations');
  });
});

describe(`webhooks listen at a ${COLUMNS}-column terminal`, () => {
  it("starts each delivery's line with the local time of day and wraps the rest under itself", async () => {
    const store = join(isolatedEnv().HOME!, 'events.db');
    const session = startInTerminal(
      ['webhooks', 'listen', '--port', '0', '--secret', SECRET, '--store', store],
      { ...isolatedEnv(), TZ: 'Asia/Kolkata' },
      COLUMNS,
    );
    const url = (await session.waitFor(/http:\/\/127\.0\.0\.1:\d+/)).trim();
    await session.waitFor('Press Ctrl-C to stop.');
    const sent = await runSvc(['webhooks', 'trigger', 'report.completed', '--to', url, '--secret', SECRET, '--json'], { env: isolatedEnv() });
    expect(sent.code, sent.stderr).toBe(0);
    await session.waitFor('verified, stored');
    session.type('\u0003');
    const { screen } = await session.exited();
    const lines = screen.split(/\r?\n/);
    expect(widerThan(lines, COLUMNS)).toEqual([]);
    const delivery = lines.findIndex((line) => / evt_\w+ +report\.completed/.test(line));
    expect(lines[delivery]).toMatch(/^\d\d:\d\d:\d\d {2}evt_\w+ {2}report\.completed/);
    // What does not fit continues under the text, past the time of day.
    expect(lines[delivery + 1]).toMatch(/^ {10}(rep_\w+ {2})?verified, stored/);
  });
});

describe(`help at a ${COLUMNS}-column terminal`, () => {
  it('fits, examples aside (they are commands to copy whole)', async () => {
    const prose = (lines: string[]) => lines.filter((line) => !line.startsWith('  $ '));
    for (const args of [
      ['--help'],
      ...['reports', 'applicants', 'documents', 'keys', 'webhooks', 'contract', 'sandbox', 'config'].map((topic) => [topic, '--help']),
    ]) {
      const shown = await runInTerminal(args, isolatedEnv(), COLUMNS);
      expect(widerThan(prose(shown.lines), COLUMNS), args.join(' ')).toEqual([]);
    }
  });

  it("puts no command's summary, the first line of its help, beyond the terminal's edge", () => {
    const manifest = JSON.parse(readFileSync('oclif.manifest.json', 'utf8')) as { commands: Record<string, { summary?: string }> };
    const wide = Object.entries(manifest.commands).filter(([, command]) => (command.summary ?? '').length > COLUMNS);
    expect(wide.map(([id]) => id)).toEqual([]);
  });
});

describe('times for people', () => {
  const localTime = (iso: string, timeZone: string) => {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
        .formatToParts(new Date(iso))
        .map((part) => [part.type, part.value]),
    );
    return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
  };

  it('are relative and local on a terminal, in the time zone TZ names', async () => {
    const shown = await runInTerminal(['applicants', 'get', applicant.id], { ...sandbox.env, TZ: 'Asia/Kolkata' }, COLUMNS);
    const created = shown.lines.find((line) => line.startsWith('created '));
    expect(created).toMatch(/^created +(\d+ (second|minute)s? ago|now) \(\d{4}-\d\d-\d\d \d\d:\d\d GMT\+5:30\)$/);
    expect(created).toContain(localTime(applicant.created_at, 'Asia/Kolkata'));
  });

  it('are exact and in UTC with --utc, when piped, and in --json', async () => {
    const utc = await runInTerminal(['applicants', 'get', applicant.id, '--utc'], { ...sandbox.env, TZ: 'Asia/Kolkata' }, COLUMNS);
    expect(utc.lines.some((line) => new RegExp(`^created +${applicant.created_at}$`).test(line))).toBe(true);
    const piped = await runSvc(['reports', 'list'], { env: { ...sandbox.env, TZ: 'Asia/Kolkata' } });
    expect(
      piped.stdout
        .split('\n')
        .find((line) => line.startsWith(`${report.id}\t`))
        ?.split('\t')
        .at(-1),
    ).toBe(report.created_at);
    expect((await parsed<Applicant>(['applicants', 'get', applicant.id])).created_at).toBe(applicant.created_at);
  });
});

describe(`what a table leaves out at a ${COLUMNS}-column terminal`, () => {
  it('keys list keeps the facts it is for (read-only, IP lock, last use); webhooks events keeps the type, and leaves out a column no event has a value for', async () => {
    const keys = await runInTerminal(['keys', 'list'], { ...sandbox.env, SVC_ADMIN_KEY: sandbox.keys.admin }, COLUMNS);
    expect(keys.lines[0]).toMatch(/^ID +.*READ-ONLY +IP LOCK +LAST USED$/);
    expect(keys.lines.some((line) => /^key_\w{24} .* yes +any +\S/.test(line))).toBe(true);
    expect(keys.lines.some((line) => / no +192\.0\.2\.10 /.test(line))).toBe(true);
    // Before the test of every command below forwards one.
    const events = await runInTerminal(['webhooks', 'events', '--store', listen.store], sandbox.env, COLUMNS);
    expect(events.lines[0]).toMatch(/^RECEIVED +EVENT +TYPE +STATUS$/);
    expect(events.lines.join('\n')).not.toMatch(/forward/i);
  });
});

describe(`every command at a ${COLUMNS}-column terminal`, () => {
  it('fits every line of its output for people, help included, and keeps every id whole', { timeout: 900_000 }, async () => {
    await listen.waitFor((lines) => lines.some((line) => line.type === 'report.completed'));
    const home = sandbox.env.HOME!;
    // Files where an operator keeps them: a path of 60-odd characters, which fits a line but not what is left of one.
    const deep = join(home, 'deployments', 'production', 'billing-worker');
    mkdirSync(deep, { recursive: true });
    const env = { ...sandbox.env, SVC_API_KEY: sandbox.keys.test, SVC_ADMIN_KEY: sandbox.keys.admin, SVC_WEBHOOK_SECRET: SECRET };
    const payload = join(home, 'event.json');
    writeFileSync(payload, '{"id":"evt_0123456789abcdefghijklmn","type":"report.created","data":{}}');
    const header = (await runSvc(['webhooks', 'sign', '--payload-file', payload], { env })).stdout.trim();
    const passport = join(home, 'passport.txt');
    writeFileSync(passport, 'not a passport, but a text the sandbox reads\n');
    const keys = (await parsed<{ data: Array<{ id: string; prefix_hint: string }> }>(['keys', 'list'])).data;
    const spare = await parsed<{ id: string }>(['keys', 'create', '--name', 'spare', '--key-file', join(home, 'spare.key')]);
    const spareReport = await parsed<Report>([
      'reports',
      'create',
      '--applicant',
      applicant.id,
      '--destination',
      'FR',
      '--visa-type',
      'tourist',
      '--purpose',
      'Visit',
    ]);
    const eventId = String(listen.lines.find((line) => line.type === 'report.completed')?.event_id);
    const testKey = keys.find((key) => sandbox.keys.test.endsWith(key.prefix_hint.split('…')[1]!))!;
    // contract verify: kit-width.test.ts, for it waits out a rate-limit window.
    const runs: string[][] = [
      ['applicants', 'create', '--given-names', 'Ana', '--surname', 'Silva', '--date-of-birth', '1990-04-12', '--nationality', 'PT', '--travel', 'DE:2023'],
      ['applicants', 'get', applicant.id],
      ['applicants', 'update', applicant.id, '--occupation', 'Engineer'],
      ['config', 'list'],
      ['config', 'get', 'base_url'],
      ['config', 'set', 'base_url', sandbox.url, '--profile', 'other'],
      ['config', 'use', 'sandbox'],
      ['config', 'unset', 'base_url', '--profile', 'other'],
      ['contract', 'list'],
      ['documents', 'upload', passport, '--type', 'passport', '--applicant', applicant.id],
      ['keys', 'list'],
      ['keys', 'get', testKey.id],
      ['keys', 'create', '--name', 'billing worker', '--key-file', join(deep, 'billing.key')],
      ['keys', 'rotate', testKey.id, '--new-key-file', join(deep, 'new.key'), '--dry-run'],
      // A deploy command that fails stops the rotation at step 3, leaving it in the journal for `keys rotations`.
      ['keys', 'rotate', testKey.id, '--new-key-file', join(deep, 'rotated.key'), '--deploy-cmd', 'false', '--yes'],
      ['keys', 'rotations'],
      ['keys', 'revoke', spare.id, '--yes'],
      ['reports', 'create', '--applicant', applicant.id, '--destination', 'DE', '--visa-type', 'tourist', '--purpose', 'Two weeks in Berlin'],
      ['reports', 'create', '--applicant', applicant.id, '--destination', 'DE', '--visa-type', 'tourist', '--purpose', 'Two weeks in Berlin', '--wait'],
      ['reports', 'list'],
      ['reports', 'get', report.id],
      ['reports', 'wait', report.id],
      ['reports', 'open', report.id, '--output', join(deep, 'report.html')],
      ['reports', 'delete', spareReport.id, '--yes'],
      ['sandbox', 'cert', '--data-dir', sandbox.dataDir],
      ['sandbox', 'keys', '--data-dir', sandbox.dataDir],
      ['sandbox', 'deliveries', '--data-dir', sandbox.dataDir],
      ['sandbox', 'deliveries', 'replay', eventId, '--data-dir', sandbox.dataDir, '--to', listen.url],
      ['webhooks', 'events', '--store', listen.store],
      ['webhooks', 'check', listen.url],
      ['webhooks', 'trigger', 'report.completed', '--to', `${listen.url}/hooks/visa-reports/production/billing-worker`],
      ['webhooks', 'replay', eventId, '--store', listen.store, '--forward-to', listen.url],
      ['webhooks', 'sign', '--payload-file', payload],
      ['webhooks', 'verify', '--header', header, '--payload-file', payload],
      ['webhooks', 'prune', '--store', listen.store, '--before', '30d', '--dry-run'],
    ];
    const manifest = JSON.parse(readFileSync('oclif.manifest.json', 'utf8')) as { commands: Record<string, unknown> };
    const helps = [[], ['--help'], ...Object.keys(manifest.commands).map((id) => [...id.split(':'), '--help'])];
    // URLs and paths a person copies: a line break inside one makes the copy wrong.
    const tokens = [
      `${listen.url}/hooks/visa-reports/production/billing-worker`,
      sandbox.url,
      listen.url,
      listen.store,
      sandbox.dataDir,
      sandbox.caCert,
      ...['billing.key', 'rotated.key', 'new.key', 'report.html'].map((file) => join(deep, file)),
    ];
    const misfits: string[] = [];
    for (const args of [...runs, ...helps]) {
      const shown = await runInTerminal(args, env, COLUMNS);
      // A live line is redrawn after a carriage return: each drawing must fit.
      const drawn = shown.lines.flatMap((line) => line.split('\r'));
      const wide = widerThan(drawn, COLUMNS).map((line) => `wider: ${line}`);
      const broken = args.includes('--help')
        ? []
        : [...brokenIds(drawn).map((id) => `broken id: ${id}`), ...brokenTokens(drawn, tokens).map((token) => `broken: ${token}`)];
      const expectedCode = args.includes('--deploy-cmd') ? 14 : 0;
      if (shown.code !== expectedCode || wide.length || broken.length)
        misfits.push(`svc ${args.join(' ')} (exit ${shown.code})\n  ${[...wide, ...broken].join('\n  ')}`);
    }
    expect(misfits.join('\n'), 'every command now fits').toBe('');
  });
});
