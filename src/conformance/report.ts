import { escapeControls } from '../core/control-characters.js';
import { PART_TITLES } from './catalogue.js';
import type { RunRecord } from './record.js';
import type { CheckResult, RunResult, TimedCheckResult } from './run.js';

/** The one-word verdict of a run: failures first; inconclusive checks leave it open. */
export function verdictOf(result: Pick<RunResult, 'failed' | 'inconclusive'>): 'conforms' | 'does not conform' | 'inconclusive' {
  if (result.failed > 0) return 'does not conform';
  return result.inconclusive > 0 ? 'inconclusive' : 'conforms';
}

/** The parts of the specification the run's checks belong to, in order. */
export function partsOf(result: RunResult): string[] {
  return [...new Set(result.checks.map((check) => check.spec))].sort((a, b) => Number(a) - Number(b));
}

export function partTitle(part: string): string {
  return `Part ${part}: ${PART_TITLES[part] ?? ''}`;
}

/** The `--json` object of `contract verify`: the counts, the verdict, every check, and the run record. */
export interface ConformanceJson {
  level: RunResult['level'];
  passed: number;
  failed: number;
  skipped: number;
  inconclusive: number;
  verdict: ReturnType<typeof verdictOf>;
  checks: CheckResult[];
  run: RunRecord;
}

export function toJson(result: RunResult): ConformanceJson {
  return {
    level: result.level,
    passed: result.passed,
    failed: result.failed,
    skipped: result.skipped,
    inconclusive: result.inconclusive,
    verdict: verdictOf(result),
    checks: result.checks.map(({ id, title, spec, level, verified_by, status, detail, findings, seed, minimal_case }) => ({
      id,
      title,
      spec,
      level,
      status,
      detail,
      ...(findings ? { findings } : {}),
      verified_by,
      ...(seed !== undefined ? { seed } : {}),
      ...(minimal_case ? { minimal_case } : {}),
    })),
    run: result.run,
  };
}

// XML 1.0 allows tab, line feed, carriage return and these ranges; anything else cannot appear even escaped.
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const NOT_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * Text for an attribute or an element, from the implementation under test as much as from svc: what a
 * terminal or a log viewer showing it could act on (C0 and C1 controls, bidirectional overrides, line
 * breaks: a CI server prints JUnit text) shown escaped as a line for people shows it, a character XML
 * cannot carry as U+FFFD, and XML's markup escaped.
 */
export function escapeXml(text: string): string {
  return escapeControls(text)
    .replace(NOT_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Text of several lines for an element (a check's evidence, a failure's detail): each line as escapeXml makes it. */
export function escapeXmlLines(text: string): string {
  return text.split('\n').map(escapeXml).join('\n');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** A part's checks run concurrently: its time is from the first one's start to the last one's end. */
function spanMs(checks: TimedCheckResult[]): number {
  const times = checks.flatMap((check) => (check.time ? [check.time] : []));
  if (times.length === 0) return 0;
  return Math.max(...times.map((time) => time.start_ms + time.duration_ms)) - Math.min(...times.map((time) => time.start_ms));
}

function attributes(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([name, value]) => ` ${name}="${escapeXml(String(value))}"`)
    .join('');
}

/** The run record, as properties of the first testsuite: the root element of JUnit has none. */
function recordProperties(record: RunRecord): Array<[string, string]> {
  const properties: Array<[string, string]> = [
    ['kit_version', record.kit_version],
    ['base_url', record.base_url],
    ['level', record.level],
    ['fast', String(record.fast)],
    ['started_at', record.started_at],
    ['finished_at', record.finished_at],
    ['requests', String(record.requests)],
    ['budgets.kept_answers.bytes', String(record.budgets.kept_answers.bytes)],
    ['budgets.kept_answers.bodies_dropped', String(record.budgets.kept_answers.bodies_dropped)],
    ['budgets.waits.waited_ms', String(record.budgets.waits.waited_ms)],
    ['budgets.transient_answers.most_in_a_row', String(record.budgets.transient_answers.most_in_a_row)],
    ...(record.stopped ? [['stopped.budget', record.stopped.budget] as [string, string], ['stopped.message', record.stopped.message] as [string, string]] : []),
    ['openapi_sha256', record.openapi_sha256],
    ...record.contracts.map(({ file, sha256 }): [string, string] => [`contract_sha256.${file}`, sha256]),
  ];
  if (record.generated)
    properties.push(
      ['generated.seed', String(record.generated.seed)],
      ['generated.budget', String(record.generated.budget)],
      ['generated.requests', String(record.generated.requests)],
    );
  const receiver = record.webhook_receiver;
  if (receiver)
    properties.push(
      ['webhook_receiver.authenticated', String(receiver.authenticated)],
      ['webhook_receiver.deliveries', String(receiver.deliveries)],
      ['webhook_receiver.noise', String(receiver.noise)],
    );
  return properties;
}

/** A part's coverage by clause, as testsuite properties. */
function coverageProperties(coverage: RunRecord['coverage'][number] | undefined): Array<[string, string]> {
  if (!coverage) return [];
  return [
    ['coverage.stated_rules', String(coverage.stated_rules)],
    ['coverage.with_checks', String(coverage.with_checks)],
    ['coverage.checked', String(coverage.checked)],
    ...coverage.clauses.map((clause): [string, string] => [
      `coverage.clause.${clause.clause}`,
      `${clause.state}${clause.checks.length ? `: ${clause.checks.join(', ')}` : clause.note ? `: ${clause.note}` : ''}`,
    ]),
  ];
}

/**
 * A case's whole evidence, for its system-out: a failure's every finding, one a line, and a generated
 * check's smallest case, one request a line, with the seed that replays it; otherwise the detail.
 */
function evidenceOf(check: TimedCheckResult): string {
  const evidence = check.findings?.join('\n') ?? check.detail;
  if (!check.minimal_case) return evidence;
  return [
    evidence,
    `The smallest case (seed ${String(check.seed)}; svc contract verify --seed ${String(check.seed)} replays the run):`,
    ...check.minimal_case,
  ].join('\n');
}

function testcase(check: TimedCheckResult, part: string): string[] {
  const open = `    <testcase${attributes({ classname: `svc.contract.part${part}`, name: `${check.id}: ${check.title}`, time: seconds(check.time?.duration_ms ?? 0) })}>`;
  const systemOut = `      <system-out>${escapeXmlLines(evidenceOf(check))}</system-out>`;
  if (check.status === 'passed') return [open, systemOut, '    </testcase>'];
  if (check.status === 'skipped') return [open, `      <skipped${attributes({ message: check.detail })}/>`, systemOut, '    </testcase>'];
  // Inconclusive: an error of the test run, not a failure of the implementation (JUnit's own distinction).
  const [element, type] = check.status === 'inconclusive' ? ['error', 'inconclusive'] : ['failure', 'nonconformant'];
  return [
    open,
    `      <${element}${attributes({ message: check.detail.slice(0, 500), type })}>${escapeXmlLines(check.detail)}</${element}>`,
    systemOut,
    '    </testcase>',
  ];
}

function testsuite(result: RunResult, part: string, first: boolean): string[] {
  const record = result.run;
  const checks = result.checks.filter((check) => check.spec === part);
  const properties = [...(first ? recordProperties(record) : []), ...coverageProperties(record.coverage.find((item) => item.part === part))];
  return [
    `  <testsuite${attributes({
      name: partTitle(part),
      tests: checks.length,
      failures: checks.filter((check) => check.status === 'failed').length,
      errors: checks.filter((check) => check.status === 'inconclusive').length,
      skipped: checks.filter((check) => check.status === 'skipped').length,
      time: seconds(spanMs(checks)),
      timestamp: record.started_at,
    })}>`,
    ...(properties.length > 0
      ? ['    <properties>', ...properties.map(([name, value]) => `      <property${attributes({ name, value })}/>`), '    </properties>']
      : []),
    ...checks.flatMap((check) => testcase(check, part)),
    '  </testsuite>',
  ];
}

/**
 * A JUnit XML report as Jenkins (the xunit plugin's JUnit schema) and GitLab read it: one testsuite
 * per part of the specification, one testcase per check, with the check's whole evidence in its
 * system-out. The first testsuite carries the run record (kit version, base URL, time, what it spent
 * of its budgets and whether it stopped past one, hashes of openapi.yaml and the contracts, whether
 * webhook deliveries were authenticated and how many were noise) as properties, and each its part's
 * coverage by clause.
 */
export function toJunit(result: RunResult): string {
  const record = result.run;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: 'svc contract verify', tests: result.checks.length, failures: result.failed, errors: result.inconclusive, time: seconds(record.duration_ms) })}>`,
    ...partsOf(result).flatMap((part, index) => testsuite(result, part, index === 0)),
    '</testsuites>',
    '',
  ].join('\n');
}
