/**
 * `svc contract verify` at an 80-column terminal, beside terminal-width.test.ts: the real `svc` in a
 * pseudo-terminal against the sandbox. A file of its own, for the run waits out the test key's
 * rate-limit window (limits.remaining-header-429), and other files go on meanwhile.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type InProcessSandbox, startSandboxInProcess } from '../helpers/sandbox.js';
import { brokenIds, brokenTokens, runInTerminal, widerThan } from '../helpers/terminal.js';

const COLUMNS = 80;
let sandbox: InProcessSandbox;

beforeAll(async () => {
  sandbox = await startSandboxInProcess();
});
afterAll(async () => {
  await sandbox.stop();
});

it(`contract verify fits every line at a ${COLUMNS}-column terminal, its live lines included, and keeps every id, URL and path whole`, async () => {
  const env = { ...sandbox.env, SVC_API_KEY: sandbox.keys.test, SVC_ADMIN_KEY: sandbox.keys.admin };
  // The sandbox is this run's alone: the kit may exhaust its window, and its wait is drawn too.
  const args = ['contract', 'verify', '--base-url', sandbox.url, '--ca-cert', sandbox.caCert, '--only', 'auth.*,limits.*', '--provoke-429'];
  const shown = await runInTerminal(args, env, COLUMNS);
  expect(shown.code, `${args.join(' ')}\n${shown.lines.join('\n')}`).toBe(0);
  // A live line is redrawn after a carriage return: each drawing must fit.
  const drawn = shown.lines.flatMap((line) => line.split('\r'));
  expect(widerThan(drawn, COLUMNS)).toEqual([]);
  expect(brokenIds(drawn)).toEqual([]);
  expect(brokenTokens(drawn, [sandbox.url, sandbox.caCert])).toEqual([]);
  expect(shown.lines.join('\n')).toContain('limits.remaining-header-429');
});
