import { escapeXml, escapeXmlLines } from './report.js';

/**
 * The JUnit report of a run that could not start or ended before its verdict (an unreachable base URL,
 * a refused key, a usage error): one testsuite "svc contract verify" holding one testcase whose error
 * names the exit code and what went wrong, so that a test reporter finds a report, and a failing one.
 * The root carries no skipped or timestamp attribute, which Jenkins' JUnit schema does not allow there.
 */
export function runErrorJunit(exitCode: number, message: string): string {
  const text = `exit code ${exitCode}: ${message}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites name="svc contract verify" tests="1" failures="0" errors="1" time="0.000">',
    '  <testsuite name="svc contract verify" tests="1" failures="0" errors="1" skipped="0" time="0.000">',
    '    <testcase classname="svc.contract" name="the run" time="0.000">',
    `      <error message="${escapeXml(text)}" type="run-error">${escapeXmlLines(text)}</error>`,
    '    </testcase>',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
