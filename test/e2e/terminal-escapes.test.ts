/**
 * Text from outside svc (a forged delivery, an API answer, an implementation under test) reaches
 * people's terminals escaped: a control sequence in it is shown, never acted on. `--json` keeps
 * the text exact. The real binary, against real servers on 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { terminalJson, terminalText } from '../../src/ui/terminal-text.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { stoppedAfterEachTest } from '../helpers/listen.js';
import { startOtherImplementation } from '../helpers/other-implementation.js';
import { apiError, json, startServer } from '../helpers/server.js';
import { isolatedEnv, runSvc, SVC_BIN } from '../helpers/svc.js';
import { makeCertificate } from '../helpers/tls.js';

const KEY = 'svc_test_escapes0123456789abcdefghijklmn';
const SECRET = 'whsec_escapes0123456789abcdefghijklmnopq';
const FORGER = 'whsec_forger_escapes0123456789abcdefghij';

/** OSC 52 (sets the clipboard), ended by BEL; a C1 CSI; a right-to-left override; DEL. */
const CLIPBOARD = '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007';
const HOSTILE = `${CLIPBOARD}\u009b2J\u202Eevil\u007f`;
const ESCAPED = '\\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\u0007\\u009b2J\\u202eevil\\u007f';

/** Any character a terminal could act on, bar the line breaks and tabs svc writes itself. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const { stopAfterTest } = stoppedAfterEachTest(SECRET);

describe('terminalText', () => {
  it('escapes C0 and C1 controls, DEL, bidirectional controls and line separators, and nothing else', () => {
    expect(terminalText(HOSTILE)).toBe(ESCAPED);
    expect(terminalText('a\nb\tc\rd\u2028e\u2066f\u200fg')).toBe('a\\nb\\tc\\rd\\u2028e\\u2066f\\u200fg');
    expect(terminalText('rep_123 · Zoë → 東京 ✓ \\u001b')).toBe('rep_123 · Zoë → 東京 ✓ \\u001b');
  });

  it('terminalJson writes the same characters as JSON escapes, which parse back to the same text', () => {
    const value = { id: `rep_${HOSTILE}`, name: 'Zoë → 東京\u2028' };
    const text = terminalJson(value);
    expect(text).toBe(`{"id":"rep_${ESCAPED}","name":"Zoë → 東京\\u2028"}`);
    expect(JSON.parse(text)).toEqual(value);
  });
});

/** The real `svc webhooks listen` for people (no --json): its lines on stdout, its notes on stderr. */
async function listenForPeople(env: Record<string, string>) {
  const child = spawn(process.execPath, [SVC_BIN, 'webhooks', 'listen', '--port', '0', '--store', join(env.HOME!, 'events.db')], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  stopAfterTest(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  const waitFor = async (predicate: () => boolean) => {
    const deadline = Date.now() + 20_000;
    while (!predicate()) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`svc webhooks listen: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await waitFor(() => /Listening on \S+,/.test(stderr));
  const url = /Listening on (\S+),/.exec(stderr)![1]!;
  return { url, waitFor, output: () => ({ stdout, stderr }) };
}

describe('svc webhooks listen shows a forged delivery escaped', () => {
  it('prints the id, type and resource a rejected delivery claims with their control characters escaped', async () => {
    const env = isolatedEnv({ SVC_WEBHOOK_SECRET: SECRET });
    const listener = await listenForPeople(env);
    const body = JSON.stringify({ id: `evt_${HOSTILE}`, type: `report.completed${CLIPBOARD}`, data: { id: `rep_${HOSTILE}` } });
    const answer = await fetch(`${listener.url}/hooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'service-signature': signatureHeader(FORGER, body) },
      body,
    });
    expect(answer.status).toBe(400);
    await listener.waitFor(() => listener.output().stdout.includes('rejected signature_mismatch'));
    const { stdout, stderr } = listener.output();
    expect(stdout).not.toMatch(RAW_CONTROL);
    expect(stderr).not.toMatch(RAW_CONTROL);
    expect(stdout).toContain(`evt_${ESCAPED}  report.completed\\u001b]52;c;`);
    expect(stdout).toContain(`rep_${ESCAPED}  rejected signature_mismatch`);
  });
});

describe('svc against an implementation whose answers carry control characters', () => {
  it('reports get shows the fields escaped, and --json keeps them exact', async () => {
    const implementation = await startOtherImplementation({ statuses: ['completed'] });
    stopAfterTest(() => implementation.close());
    const id = implementation.addReport({ purpose: `Tourism ${HOSTILE}`, applicant_id: `app_${CLIPBOARD}` });
    const env = isolatedEnv({ SVC_BASE_URL: implementation.url, SVC_API_KEY: KEY, SVC_RETRIES: '0' });
    const shown = await runSvc(['reports', 'get', id], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toMatch(RAW_CONTROL);
    expect(shown.stdout).toContain(`purpose\tTourism ${ESCAPED}\n`);
    expect(shown.stdout).toContain('applicant\tapp_\\u001b]52;c;');
    const json = await runSvc(['reports', 'get', id, '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ purpose: `Tourism ${HOSTILE}`, applicant_id: `app_${CLIPBOARD}` });
  });

  it("shows an API error's message escaped, and --json keeps it exact", async () => {
    const server = await startServer((_request, response) => apiError(response, 404, 'not_found', `no such report ${HOSTILE}`));
    stopAfterTest(() => server.close());
    const env = isolatedEnv({ SVC_BASE_URL: server.url, SVC_API_KEY: KEY, SVC_RETRIES: '0' });
    const shown = await runSvc(['reports', 'get', 'rep_123'], { env });
    expect(shown.code).toBe(ExitCode.notFound);
    expect(shown.stderr).not.toMatch(RAW_CONTROL);
    expect(shown.stderr).toContain(`Error: 404 not_found: no such report ${ESCAPED}\n`);
    const json = await runSvc(['reports', 'get', 'rep_123', '--json'], { env });
    expect(JSON.parse(json.stdout).error.message).toBe(`404 not_found: no such report ${HOSTILE}`);
  });

  it('contract verify shows what the implementation answered escaped', async () => {
    const certificate = await makeCertificate();
    // The kit's key works; a request without one is refused, with a message of its own.
    const server = await startServer((request, response) => {
      if (request.headers.authorization) json(response, 200, {});
      else response.writeHead(401, { 'content-type': 'text/plain' }).end(`denied ${HOSTILE}`);
    }, certificate);
    stopAfterTest(() => server.close());
    const dir = mkdtempSync(join(tmpdir(), 'svc-escapes-'));
    writeFileSync(join(dir, 'ca.pem'), certificate.cert);
    const args = ['contract', 'verify', '--base-url', server.url, '--ca-cert', join(dir, 'ca.pem'), '--only', 'auth.missing-header'];
    const shown = await runSvc(args, { env: isolatedEnv({ SVC_API_KEY: KEY }) });
    expect(shown.code).toBe(ExitCode.nonConformant);
    expect(shown.stdout).not.toMatch(RAW_CONTROL);
    expect(shown.stdout).toContain(
      `FAIL\tauth.missing-header\tspec\texpected 401 with the code unauthorized; got 401 denied ${ESCAPED} (GET /v1/reports without a valid key)`,
    );
  });
});
