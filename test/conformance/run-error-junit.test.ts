/**
 * `contract verify --junit` leaves a report even when the run ends before its verdict, so that a CI's
 * test reporter finds one, and a failing one: valid against Jenkins' JUnit schema, naming the exit
 * code and the error, the key redacted.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/errors.js';
import { freePort } from '../helpers/server.js';
import { isolatedEnv, runSvc } from '../helpers/svc.js';

const SCHEMA = new URL('../fixtures/junit/junit-10.xsd', import.meta.url).pathname;
const KEY = 'svc_test_runerrorjunit0123456789abcdef';

function expectValidJunit(path: string): void {
  const result = spawnSync('xmllint', ['--noout', '--schema', SCHEMA, path], { encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
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
});
