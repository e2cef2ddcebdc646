/**
 * The kit's JUnit report as the CI servers that read it take it, from a run of `svc contract verify`
 * in the test's process: valid against the JUnit schema of Jenkins' xunit plugin (test/fixtures/junit/), and holding
 * what GitLab's parser reads (testcases in a testsuite under one testsuites; each with name, classname
 * and time; its status from a failure, error or skipped element; its output from system-out). The
 * implementation refuses all but the listing, with answers holding characters XML cannot carry and
 * characters a log viewer would act on (in a report id, in its messages), so that checks fail with more
 * findings than a detail shows, some are inconclusive, and some are skipped for the inputs the run is
 * not given.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { json, startServer, type TestServer } from '../../helpers/server.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { makeCertificate } from '../../helpers/tls.js';

const SCHEMA = new URL('../../fixtures/junit/junit-10.xsd', import.meta.url).pathname;
/** Valid in XML, acted on by a terminal or a log viewer: a C1 CSI (clears the screen), a right-to-left override, a bare CR, an OSC (retitles). */
const HOSTILE = '\u009b2J\u202eevil\r\u001b]0;retitled\u0007';
const HOSTILE_SHOWN = '\\u009b2J\\u202eevil\\r\\u001b]0;retitled\\u0007';
/** An answer's body: NUL, escape and bell characters, markup, U+FFFE, which XML cannot carry either, and the above. */
const REFUSAL = `refused \u0000\u001b[31m<svc> & ]]> \u0007\ufffe ${HOSTILE} done`;
/** The refusal as a finding shows it in the JUnit report (the kit shows a text body's white space, the CR too, as one space). */
const REFUSAL_IN_XML = '401 refused \\u0000\\u001b[31m<svc> & ]]> \\u0007\ufffd \\u009b2J\\u202eevil \\u001b]0;retitled\\u0007 done';
/** Characters XML can carry that a terminal or a log viewer would act on: the report holds none, as the file is or as a parser reads it. */
const ACTED_ON = ['\u009b', '\u202e', '\r'];

/**
 * Evidence as the report shows it, computed here apart from svc's code: on each line, C0 and C1 controls,
 * DEL, bidirectional controls and the Unicode separators as escapes (`\r` and `\t` short), and the
 * non-characters XML cannot carry as U+FFFD.
 */
function shownInJunit(text: string): string {
  const escape = (character: string) => ({ '\r': '\\r', '\t': '\\t' })[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return text
    .split('\n')
    .map((line) =>
      line.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, escape).replace(/[\ufffe\uffff]/g, '\ufffd'),
    )
    .join('\n');
}

interface JsonCheck {
  id: string;
  status: 'passed' | 'failed' | 'skipped' | 'inconclusive';
  detail: string;
  findings?: string[];
}

let server: TestServer;
let junit: string;
let xml: string;
let checks: JsonCheck[];
let code: number | null;

/** The string value of an XPath expression over the report, as xmllint gives it (with a line feed after it). */
function xpath(expression: string): string {
  const result = spawnSync('xmllint', ['--xpath', expression, junit], { encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.replace(/\n$/, '');
}

beforeAll(async () => {
  const env = isolatedEnv({ SVC_API_KEY: 'svc_test_junitreaders0123456789abcdef', SVC_ADMIN_KEY: 'svc_admin_junitreaders0123456789abcdef' });
  const certificate = await makeCertificate();
  const caCert = join(env.HOME!, 'ca.pem');
  writeFileSync(caCert, certificate.cert);
  server = await startServer((request, response) => {
    if (request.method === 'GET' && request.path.split('?')[0] === '/v1/reports')
      return json(response, 200, { object: 'list', data: [{ object: 'report', id: `rep_${HOSTILE}`, status: 'completed' }], has_more: false });
    response.writeHead(401, { 'content-type': 'text/plain; charset=utf-8' }).end(REFUSAL);
  }, certificate);
  junit = join(env.HOME!, 'contract.xml');
  const result = await svcInProcess(
    ['contract', 'verify', '--base-url', server.url, '--ca-cert', caCert, '--level', 'strict', '--fast', '--json', '--junit', junit],
    { env },
  );
  code = result.code;
  checks = (JSON.parse(result.stdout) as { checks: JsonCheck[] }).checks;
  xml = readFileSync(junit, 'utf8');
});

afterAll(() => server?.close());

describe("contract verify's JUnit report", () => {
  it('comes from a run with failures of more findings than a detail shows, inconclusive and skipped checks', () => {
    expect(code).toBe(ExitCode.nonConformant);
    const statuses = new Set(checks.map((check) => check.status));
    for (const status of ['failed', 'inconclusive', 'skipped']) expect(statuses, status).toContain(status);
    const longest = checks.reduce((most, check) => Math.max(most, check.findings?.length ?? 0), 0);
    expect(longest).toBeGreaterThan(5);
    expect(checks.find((check) => (check.findings?.length ?? 0) === longest)?.detail).toContain(`and ${longest - 5} more (--json and --junit give every one)`);
  });

  it("is valid against the JUnit schema of Jenkins' xunit plugin", () => {
    const result = spawnSync('xmllint', ['--noout', '--schema', SCHEMA, junit], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain('validates');
  });

  it('holds no character XML cannot carry', () => {
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/);
  });

  it('gives GitLab each check as a testcase of a testsuite, named, with its class, time and status', () => {
    expect(xpath('name(/*)')).toBe('testsuites');
    expect(Number(xpath('count(/testsuites/testsuite/testcase)'))).toBe(checks.length);
    const byId = new Map(checks.map((check) => [check.id, check]));
    for (let index = 1; index <= checks.length; index++) {
      const testcase = `(/testsuites/testsuite/testcase)[${index}]`;
      const check = byId.get(xpath(`string(${testcase}/@name)`).split(': ')[0]!)!;
      expect(xpath(`string(${testcase}/../@name)`)).toMatch(/^Part \d+: /);
      expect(xpath(`string(${testcase}/@classname)`)).toMatch(/^svc\.contract\.part\d+$/);
      expect(xpath(`string(${testcase}/@time)`)).toMatch(/^\d+\.\d{3}$/);
      // As GitLab's parser decides: failure, else error, else skipped, else success.
      const status = ['failure', 'error', 'skipped'].find((element) => xpath(`count(${testcase}/${element})`) !== '0') ?? 'success';
      expect(status, check.id).toBe({ failed: 'failure', inconclusive: 'error', skipped: 'skipped', passed: 'success' }[check.status]);
    }
  });

  it("puts each check's whole evidence in its system-out: every finding of a failure, the detail of the others", () => {
    const byName = new Map<string, string>();
    for (let index = 1; index <= checks.length; index++) {
      const testcase = `(/testsuites/testsuite/testcase)[${index}]`;
      expect(xpath(`count(${testcase}/system-out)`)).toBe('1');
      byName.set(xpath(`string(${testcase}/@name)`).split(': ')[0]!, xpath(`string(${testcase}/system-out)`));
    }
    for (const check of checks) {
      expect(byName.get(check.id), check.id).toBe(shownInJunit(check.findings?.join('\n') ?? check.detail));
    }
    const errorBodies = byName.get('strict.error-bodies')!.split('\n');
    expect(errorBodies.length).toBe(checks.find((check) => check.id === 'strict.error-bodies')!.findings!.length);
    expect(
      errorBodies.every((line) => line.includes(REFUSAL_IN_XML)),
      errorBodies.join('\n'),
    ).toBe(true);
  });

  it('holds none of the characters a log viewer would act on, raw or once parsed, and shows them escaped, in text and attributes', () => {
    for (const character of ACTED_ON) {
      expect(xml.includes(character), JSON.stringify(character)).toBe(false);
      expect(xpath(`count((//@* | //text())[contains(., "${character}")])`), JSON.stringify(character)).toBe('0');
    }
    expect(Number(xpath(`count(//system-out[contains(., '"id":"rep_${HOSTILE_SHOWN}"')])`))).toBeGreaterThan(0);
    expect(Number(xpath(`count(//failure/@message[contains(., '${HOSTILE_SHOWN}')])`))).toBeGreaterThan(0);
  });

  it('carries the run record once, in the first testsuite, and each part its coverage', () => {
    expect(xpath('count(//property[@name="kit_version"])')).toBe('1');
    expect(xpath('string(/testsuites/testsuite[1]/properties/property[@name="base_url"]/@value)')).toBe(server.url);
    expect(xpath('count(/testsuites/testsuite[properties/property[@name="coverage.stated_rules"]])')).toBe(xpath('count(/testsuites/testsuite)'));
  });
});
