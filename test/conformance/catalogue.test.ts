/**
 * The catalogue holds together: each check is implemented exactly once (a Pact interaction of
 * contracts/ or a probe), and each stated clause names existing checks.
 */
import { describe, expect, it } from 'vitest';
import { CATALOGUE, CHECKS_BY_ID, CLAUSES, PART_TITLES, partOf, selectChecks } from '../../src/conformance/catalogue.js';
import { checkOfInteraction } from '../../src/conformance/contract-terms.js';
import { readContracts } from '../../src/conformance/pact-runner.js';
import { escapeXml, escapeXmlLines, toJunit } from '../../src/conformance/report.js';
import type { RunResult } from '../../src/conformance/run.js';
import { FINAL, PROBES } from '../../src/conformance/run.js';

describe('the catalogue', () => {
  it('has unique ids of the form area.name, each with a part of the specification', () => {
    expect(new Set(CATALOGUE.map((check) => check.id)).size).toBe(CATALOGUE.length);
    for (const check of CATALOGUE) {
      expect(check.id).toMatch(/^[a-z]+\.[a-z0-9-]+$/);
      expect(PART_TITLES[check.spec], check.id).toBeDefined();
    }
  });

  it('implements each check exactly once: by the interactions of contracts/ named after it, or by one probe', async () => {
    const interactions = (await readContracts()).flatMap(({ pact }) => pact.interactions).map((interaction) => checkOfInteraction(interaction.description));
    // A key of the dashboard can be revoked only once: then the revocation probe decides keys.revoke instead of Pact.
    const alsoProbed = new Set(['keys.revoke']);
    // Its own requests go with the other generated checks'; its verdict, on every generated request's answer, once they are all sent.
    const sendsThenJudges = new Set(['generated.no-server-error']);
    for (const check of CATALOGUE) {
      const probes = [PROBES[check.id], FINAL[check.id]].filter(Boolean).length - (sendsThenJudges.has(check.id) && PROBES[check.id] ? 1 : 0);
      if (check.verifiedBy === 'pact') {
        expect(interactions, check.id).toContain(check.id);
        expect(probes, check.id).toBe(alsoProbed.has(check.id) ? 1 : 0);
      } else {
        expect(interactions, check.id).not.toContain(check.id);
        expect(probes, check.id).toBe(1);
      }
    }
    for (const id of [...Object.keys(PROBES), ...Object.keys(FINAL), ...interactions]) expect(CHECKS_BY_ID.has(id), id).toBe(true);
  });

  it('covers the stated clauses: each names existing checks, each spec check verifies a clause, and an unchecked clause says why', () => {
    const named = new Set(CLAUSES.flatMap((clause) => clause.checks));
    for (const clause of CLAUSES) {
      for (const id of clause.checks) expect(CHECKS_BY_ID.has(id), `${clause.id} names ${id}`).toBe(true);
      if (clause.checks.length === 0) expect(clause.unchecked, clause.id).toBeTruthy();
      expect(PART_TITLES[partOf(clause)]).toBeDefined();
    }
    for (const check of CATALOGUE.filter((entry) => entry.level === 'spec')) expect(named.has(check.id), check.id).toBe(true);
  });

  it('selects by level and by --only ids and prefixes', () => {
    expect(selectChecks('spec', undefined).selected.every((check) => check.level === 'spec')).toBe(true);
    expect(selectChecks('strict', undefined).selected).toHaveLength(CATALOGUE.length);
    expect(selectChecks('spec', ['auth.*', 'reports.get']).selected.map((check) => check.id)).toEqual(
      CATALOGUE.filter((check) => check.id.startsWith('auth.') || check.id === 'reports.get').map((check) => check.id),
    );
    expect(selectChecks('spec', ['auth.nope']).unknown).toEqual(['auth.nope']);
  });
});

describe('the JUnit report', () => {
  it("escapes XML's markup, shows controls as a terminal shows them, and drops what XML cannot hold at all", () => {
    expect(escapeXml(`a<b>&"c"'d'\u0001\u0008\ufffe\r\n\t\u009b\u202e`)).toBe(
      'a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;\\u0001\\u0008\ufffd\\r\\n\\t\\u009b\\u202e',
    );
    expect(escapeXmlLines('one\r\ntwo\n\u001b[2Jthree')).toBe('one\\r\ntwo\n\\u001b[2Jthree');
    const result: RunResult = {
      level: 'spec',
      passed: 0,
      failed: 1,
      skipped: 0,
      inconclusive: 1,
      checks: [
        {
          id: 'auth.missing-header',
          title: 't',
          spec: '7',
          level: 'spec',
          verified_by: 'probe',
          status: 'failed',
          detail: 'expected <401>; got "200" & more\u0000',
        },
        {
          id: 'auth.unknown-key',
          title: 'u',
          spec: '7',
          level: 'spec',
          verified_by: 'probe',
          status: 'inconclusive',
          detail: 'the kit could not create an applicant',
        },
      ],
      run: {
        kit_version: '1',
        base_url: 'https://x',
        level: 'spec',
        fast: true,
        started_at: 's',
        finished_at: 'f',
        duration_ms: 1500,
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
    const xml = toJunit(result);
    expect(xml).toContain(
      '<failure message="expected &lt;401&gt;; got &quot;200&quot; &amp; more\\u0000" type="nonconformant">expected &lt;401&gt;; got &quot;200&quot; &amp; more\\u0000</failure>',
    );
    expect(xml).not.toMatch(/[\u0000-\u0008]/);
    // Inconclusive is a JUnit error: the test run could not judge, which is not a failure of the implementation.
    expect(xml).toContain('<error message="the kit could not create an applicant" type="inconclusive">the kit could not create an applicant</error>');
    expect(xml).toContain('<testsuites name="svc contract verify" tests="2" failures="1" errors="1" time="1.500">');
  });
});
