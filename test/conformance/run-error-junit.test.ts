/**
 * `contract verify --junit` leaves a report even when the run ends before its verdict, so that a CI's
 * test reporter finds one, and a failing one: valid against Jenkins' JUnit schema, naming the exit
 * code and the error, the key redacted, what the implementation answered escaped.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { freePort, startServer } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';
import { makeCertificate } from '../helpers/tls.js';

const SCHEMA = new URL('../fixtures/junit/junit-10.xsd', import.meta.url).pathname;
const KEY = 'svc_test_runerrorjunit0123456789abcdef';
/** A C1 CSI (clears the screen), a right-to-left override, a bare CR, an OSC (retitles): what a log viewer printing the report would act on. */
const HOSTILE = '\u009b2J\u202eevil\r\u001b]0;retitled\u0007';
const HOSTILE_SHOWN = '\\u009b2J\\u202eevil\\r\\u001b]0;retitled\\u0007';

function expectValidJunit(path: string): void {
  const result = spawnSync('xmllint', ['--noout', '--schema', SCHEMA, path], { encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
}

/** The string value of an XPath expression over a report, as xmllint gives it (with a line feed after it). */
function xpath(path: string, expression: string): string {
  const result = spawnSync('xmllint', ['--xpath', expression, path], { encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.replace(/\n$/, '');
}

describe('contract verify --junit, when the run cannot reach its verdict', () => {
  it('writes an error report for an implementation it cannot reach', async () => {
    const env = isolatedEnv({ SVC_API_KEY: KEY });
    const junit = join(env.HOME!, 'contract.xml');
    // A port nothing listens on: the connection is refused.
    const baseUrl = `https://127.0.0.1:${await freePort()}`;
    const result = await runSvc(['contract', 'verify', '--base-url', baseUrl, '--fast', '--json', '--junit', junit], { env });
    const error = (JSON.parse(result.stdout) as { error: { message: string; exit_code: number } }).error;
    expect(result.code).toBe(ExitCode.network);
    expectValidJunit(junit);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuites name="svc contract verify" tests="1" failures="0" errors="1" time="0.000">');
    expect(xml).toContain(`<error message="exit code ${ExitCode.network}: `);
    expect(xml).toContain(error.message.slice(0, 20));
    expect(xml).not.toContain(KEY);
  });

  it('writes one for a run refused before it starts (no base URL)', async () => {
    const env = isolatedEnv({ SVC_API_KEY: KEY });
    const junit = join(env.HOME!, 'contract.xml');
    const result = await runSvc(['contract', 'verify', '--junit', junit], { env });
    expect(result.code).toBe(ExitCode.config);
    expectValidJunit(junit);
    expect(readFileSync(junit, 'utf8')).toContain(`exit code ${ExitCode.config}: no base URL is configured`);
  });

  it('writes one for a key the implementation refuses, with what it answered escaped: no C1 control, override or bare CR, raw or parsed', async () => {
    const certificate = await makeCertificate();
    const server = await startServer((_request, response) => response.writeHead(401, { 'content-type': 'text/plain' }).end(`refused ${HOSTILE}`), certificate);
    try {
      const env = isolatedEnv({ SVC_API_KEY: KEY });
      const caCert = join(env.HOME!, 'ca.pem');
      writeFileSync(caCert, certificate.cert);
      const junit = join(env.HOME!, 'contract.xml');
      const result = await runSvc(['contract', 'verify', '--base-url', server.url, '--ca-cert', caCert, '--fast', '--json', '--junit', junit], { env });
      const error = (JSON.parse(result.stdout) as { error: { message: string } }).error;
      expect(result.code).toBe(ExitCode.auth);
      expect(error.message).toContain(HOSTILE);
      expectValidJunit(junit);
      expect(readFileSync(junit, 'utf8')).not.toMatch(/[\r\u001b\u0007\u009b\u202e]|&#13;/);
      const shown = `exit code ${ExitCode.auth}: ${error.message.replace(HOSTILE, HOSTILE_SHOWN)}`;
      expect(xpath(junit, 'string(//error/@message)')).toBe(shown);
      expect(xpath(junit, 'string(//error)')).toBe(shown);
    } finally {
      await server.close();
    }
  });
});
