import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageFile } from '../core/package-files.js';
import { type Check, CLAUSES, type Level, PART_TITLES, partOf } from './catalogue.js';
import type { KitFixtures } from './fixtures.js';
import type { Status } from './outcome.js';
import { CONTRACTS_DIR } from './pact-runner.js';
import type { SpentBudget } from './run-budget.js';

interface ClauseCoverage {
  clause: string;
  text: string;
  checks: string[];
  /** `checked` when a check of it passed or failed in this run; `skipped` when none did (skipped, inconclusive or not selected); `unchecked` when no check exists. */
  state: 'checked' | 'skipped' | 'unchecked';
  note?: string;
}

interface PartCoverage {
  part: string;
  title: string;
  stated_rules: number;
  /** Stated rules with at least one check at the run's level. */
  with_checks: number;
  /** Stated rules with at least one check that passed or failed in this run. */
  checked: number;
  clauses: ClauseCoverage[];
}

/** What a run checked, for the JSON and JUnit outputs: which contract and kit, against what, when, and how much of the specification. */
export interface RunRecord {
  kit_version: string;
  base_url: string;
  level: Level;
  fast: boolean;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  /** The requests the kit sent to the implementation: every attempt, the Pact verifier's (through the forwarder) and plain HTTP included. */
  requests: number;
  /**
   * What the run spent of its budgets: the answers it kept for the checks that read them after the
   * fact (as counted, with their text and parsed JSON; bodies past the limit dropped, their checks
   * inconclusive), the time it waited at the implementation's request (waits at once counted once),
   * and the most transient answers it took in a row.
   */
  budgets: {
    kept_answers: { bytes: number; limit_bytes: number; bodies_dropped: number };
    waits: { waited_ms: number; limit_ms: number };
    transient_answers: { most_in_a_row: number; limit_in_a_row: number };
  };
  /** Why the run stopped before deciding every check, past one of its budgets (the checks it left inconclusive say so too); null when it did not. */
  stopped: { budget: SpentBudget; message: string } | null;
  openapi_sha256: string;
  contracts: Array<{ file: string; sha256: string }>;
  /**
   * Which request bodies came from `--fixtures` (the others are openapi.yaml's), the upload's
   * encoding, and whether the input that fails a report did (else: an applicant whose only document was rejected).
   */
  fixtures: { applicant: boolean; report: boolean; document: boolean; document_encoding: string; failing_report: boolean };
  /**
   * The kit's webhook receiver, when it listened: its scheme, the certificate the implementation had
   * to trust, whether deliveries were authenticated with --webhook-secret (without it, the event
   * verdicts rest on deliveries anyone who reached the receiver could have sent), how many it kept
   * as evidence, and how many it set aside as noise, by reason: a signature that did not verify
   * (missing_header, signature_mismatch…) or receiver_full.
   */
  webhook_receiver: {
    scheme: 'http' | 'https';
    certificate: string | null;
    /** The certificate's SHA-256 fingerprint, for the implementation's operator to check the one trusted. */
    certificate_sha256: string | null;
    authenticated: boolean;
    deliveries: number;
    noise: number;
    noise_reasons: Record<string, number>;
  } | null;
  /**
   * The generated checks, when any ran: the seed their inputs and sequences came from (`--seed`
   * replays them), the requests they were allowed (`--generated-requests`, else what the rate-limit
   * window left them) and the requests they sent (counted in `requests` too).
   */
  generated: { seed: number; budget: number; requests: number } | null;
  coverage: PartCoverage[];
}

function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function kitVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(packageFile('package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

function coverage(level: Level, catalogue: readonly Check[], statuses: Map<string, Status>): PartCoverage[] {
  const atLevel = new Set(catalogue.filter((check) => level === 'strict' || check.level === 'spec').map((check) => check.id));
  const parts = [...new Set(CLAUSES.map(partOf))];
  return parts.map((part) => {
    const clauses: ClauseCoverage[] = CLAUSES.filter((clause) => partOf(clause) === part).map((clause) => {
      const checks = clause.checks.filter((id) => atLevel.has(id));
      const ran = checks.some((id) => statuses.get(id) === 'passed' || statuses.get(id) === 'failed');
      const state = checks.length === 0 ? 'unchecked' : ran ? 'checked' : 'skipped';
      const note = checks.length === 0 ? (clause.unchecked ?? (clause.checks.length > 0 ? 'checked at level strict only' : undefined)) : undefined;
      return { clause: clause.id, text: clause.text, checks, state, ...(note ? { note } : {}) };
    });
    return {
      part,
      title: PART_TITLES[part] ?? '',
      stated_rules: clauses.length,
      with_checks: clauses.filter((clause) => clause.checks.length > 0).length,
      checked: clauses.filter((clause) => clause.state === 'checked').length,
      clauses,
    };
  });
}

export async function runRecord(input: {
  baseUrl: URL;
  level: Level;
  fast: boolean;
  started: Date;
  requests: number;
  budgets: RunRecord['budgets'];
  stopped: RunRecord['stopped'];
  checks: Array<{ id: string; status: Status }>;
  catalogue: readonly Check[];
  pactDir?: string | undefined;
  fixtures: KitFixtures;
  webhookReceiver: RunRecord['webhook_receiver'] | undefined;
  generated?: RunRecord['generated'] | undefined;
}): Promise<RunRecord> {
  const finished = new Date();
  const dir = input.pactDir ?? CONTRACTS_DIR;
  const files = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  const base = new URL(input.baseUrl.href);
  base.username = '';
  base.password = '';
  return {
    kit_version: await kitVersion(),
    base_url: base.href.replace(/\/$/, ''),
    level: input.level,
    fast: input.fast,
    started_at: input.started.toISOString(),
    finished_at: finished.toISOString(),
    duration_ms: finished.getTime() - input.started.getTime(),
    requests: input.requests,
    budgets: input.budgets,
    stopped: input.stopped,
    openapi_sha256: sha256(await readFile(packageFile('openapi.yaml'))),
    contracts: await Promise.all(files.map(async (file) => ({ file: `contracts/${file}`, sha256: sha256(await readFile(join(dir, file))) }))),
    fixtures: {
      applicant: input.fixtures.given.applicant,
      report: input.fixtures.given.report,
      document: input.fixtures.given.document,
      document_encoding: input.fixtures.document.encoding,
      failing_report: input.fixtures.given.failingReport,
    },
    webhook_receiver: input.webhookReceiver ?? null,
    generated: input.generated ?? null,
    coverage: coverage(input.level, input.catalogue, new Map(input.checks.map((check) => [check.id, check.status]))),
  };
}
