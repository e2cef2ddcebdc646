/**
 * The catalogue holds together: each check is implemented exactly once (a Pact interaction of
 * contracts/ or a probe), each stated clause names existing checks, and the tables the strict
 * checks use agree with openapi.yaml.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CATALOGUE, CHECKS_BY_ID, CLAUSES, PART_TITLES, partOf, selectChecks } from '../../src/conformance/catalogue.js';
import { checkOfInteraction } from '../../src/conformance/contract-terms.js';
import { readContracts } from '../../src/conformance/pact-runner.js';
import { ERROR_CODES, OPERATIONS } from '../../src/conformance/probes/strict.js';
import { EVENT_SCHEMAS } from '../../src/webhooks/envelope.js';
import { escapeXml, toJunit } from '../../src/conformance/report.js';
import type { RunResult } from '../../src/conformance/run.js';
import { FINAL, PROBES } from '../../src/conformance/run.js';

const oas = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8'));

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
    for (const check of CATALOGUE) {
      const probes = [PROBES[check.id], FINAL[check.id]].filter(Boolean).length;
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

describe("the strict checks' tables agree with openapi.yaml", () => {
  const operations = new Map<
    string,
    {
      method: string;
      path: string;
      operation: { responses: Record<string, { $ref?: string; content?: { 'application/json': { schema: { $ref: string } } } }> };
    }
  >();
  for (const [path, item] of Object.entries(oas.paths as Record<string, Record<string, { operationId: string; responses: never }>>)) {
    for (const [method, operation] of Object.entries(item))
      if (operation.operationId) operations.set(operation.operationId, { method: method.toUpperCase(), path, operation });
  }

  it('success status and schema of every operation the kit calls', () => {
    expect(OPERATIONS.map((operation) => operation.id).sort()).toEqual([...operations.keys()].sort());
    for (const operation of OPERATIONS) {
      const documented = operations.get(operation.id)!;
      expect(documented.method, operation.id).toBe(operation.method);
      expect(operation.path.test(documented.path.replace('{id}', 'x_1')), operation.id).toBe(true);
      const success = Object.keys(documented.operation.responses).filter((status) => status.startsWith('2'));
      expect(success, operation.id).toContain(String(operation.success));
      expect(documented.operation.responses[String(operation.success)]!.content!['application/json'].schema.$ref, operation.id).toBe(
        `#/components/schemas/${operation.schema}`,
      );
    }
  });

  it('error codes of every error status', () => {
    const codes: Record<number, string[]> = {};
    for (const [name, response] of Object.entries(
      oas.components.responses as Record<
        string,
        {
          content?: {
            'application/json': { schema: { allOf: Array<{ properties?: { error: { allOf: Array<{ properties?: { code: { enum: string[] } } }> } } }> } };
          };
        }
      >,
    )) {
      const code = response.content?.['application/json'].schema.allOf[1]?.properties?.error.allOf[1]?.properties?.code.enum;
      if (!code) continue;
      const status = Number(
        Object.values(oas.paths)
          .flatMap((item) => Object.values(item as Record<string, { responses?: Record<string, { $ref?: string }> }>))
          .flatMap((operation) => Object.entries(operation.responses ?? {}))
          .find(([, value]) => value.$ref === `#/components/responses/${name}`)?.[0],
      );
      codes[status] = [...new Set([...(codes[status] ?? []), ...code])];
    }
    expect(ERROR_CODES).toEqual(codes);
  });

  it('the schema of every event', () => {
    const schemas = Object.fromEntries(
      Object.entries(oas.webhooks as Record<string, { post: { requestBody: { content: { 'application/json': { schema: { $ref: string } } } } } }>).map(
        ([type, item]) => [type, item.post.requestBody.content['application/json'].schema.$ref.split('/').at(-1)],
      ),
    );
    expect(EVENT_SCHEMAS).toEqual(schemas);
  });
});

describe('the JUnit report', () => {
  it('escapes what XML cannot hold as it is, and drops what it cannot hold at all', () => {
    expect(escapeXml(`a<b>&"c"'d'\u0001\u0008\ufffe`)).toBe('a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;\ufffd\ufffd\ufffd');
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
        openapi_sha256: 'h',
        contracts: [],
        fixtures: { applicant: false, report: false, document: false, document_encoding: 'multipart' },
        webhook_receiver: null,
        coverage: [],
      },
    };
    const xml = toJunit(result);
    expect(xml).toContain(
      '<failure message="expected &lt;401&gt;; got &quot;200&quot; &amp; more\ufffd" type="nonconformant">expected &lt;401&gt;; got &quot;200&quot; &amp; more\ufffd</failure>',
    );
    expect(xml).not.toMatch(/[\u0000-\u0008]/);
    // Inconclusive is a JUnit error: the test run could not judge, which is not a failure of the implementation.
    expect(xml).toContain('<error message="the kit could not create an applicant" type="inconclusive">the kit could not create an applicant</error>');
    expect(xml).toContain('<testsuites name="svc contract verify" tests="2" failures="1" errors="1" skipped="0" time="1.500"');
  });
});
