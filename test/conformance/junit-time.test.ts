import { describe, expect, it } from 'vitest';
import { toJunit } from '../../src/conformance/report.js';
import type { RunResult, TimedCheckResult } from '../../src/conformance/run.js';

function check(id: string, spec: string, time?: TimedCheckResult['time']): TimedCheckResult {
  return { id, title: id, spec, level: 'spec', verified_by: 'probe', status: 'passed', detail: 'as the specification states', time };
}

const result: RunResult = {
  level: 'spec',
  passed: 4,
  failed: 0,
  skipped: 0,
  inconclusive: 0,
  checks: [
    // Part 7's two checks overlap: 100–1350 ms and 400–2900 ms of the run.
    check('auth.missing-header', '7', { start_ms: 100, duration_ms: 1250 }),
    check('auth.unknown-key', '7', { start_ms: 400, duration_ms: 2500 }),
    check('reports.create', '4', { start_ms: 0, duration_ms: 42 }),
    // Not run (skipped before it started): no time of its own.
    check('reports.delete', '4'),
  ],
  run: {
    kit_version: '1',
    base_url: 'https://x',
    level: 'spec',
    fast: true,
    started_at: 's',
    finished_at: 'f',
    duration_ms: 3100,
    requests: 42,
    budgets: {
      kept_answers: { bytes: 0, limit_bytes: 1, bodies_dropped: 0 },
      waits: { waited_ms: 0, limit_ms: 1 },
      transient_answers: { most_in_a_row: 0, limit_in_a_row: 1 },
    },
    stopped: null,
    openapi_sha256: 'h',
    contracts: [],
    fixtures: { applicant: false, report: false, document: false, document_encoding: 'multipart', failing_report: false },
    webhook_receiver: null,
    generated: null,
    coverage: [],
  },
};

describe('the JUnit report’s times', () => {
  const xml = toJunit(result);

  it('gives each check the time it took', () => {
    expect(xml).toContain('name="auth.missing-header: auth.missing-header" time="1.250"');
    expect(xml).toContain('name="auth.unknown-key: auth.unknown-key" time="2.500"');
    expect(xml).toContain('name="reports.create: reports.create" time="0.042"');
    expect(xml).toContain('name="reports.delete: reports.delete" time="0.000"');
  });

  it('gives each part the span of its concurrent checks, and the run its whole duration', () => {
    expect(xml).toMatch(/<testsuite name="Part 7: [^"]*" tests="2" failures="0" errors="0" skipped="0" time="2.800"/);
    expect(xml).toMatch(/<testsuite name="Part 4: [^"]*" tests="2" failures="0" errors="0" skipped="0" time="0.042"/);
    expect(xml).toContain('<testsuites name="svc contract verify" tests="4" failures="0" errors="0" time="3.100">');
  });
});
