import { namesCode } from '../api/error-codes.js';
import type { Exchange } from './http.js';

/** `inconclusive`: the kit's own setup could not be done, so the check says nothing of the implementation. */
export type Status = 'passed' | 'failed' | 'skipped' | 'inconclusive';

export interface Outcome {
  status: Status;
  detail: string;
  /** A failure's every finding, where `detail` shows the first few. */
  findings?: string[] | undefined;
  /** A generated check's failure: the smallest case that shows it, as requests a person sends again. */
  minimalCase?: string[] | undefined;
}

/** One thing a check found wrong: what the specification expects, what came back, and the request that showed it. */
export interface Finding {
  expected: string;
  got: string;
  request?: string | undefined;
}

export function describeFinding(finding: Finding): string {
  return `expected ${finding.expected}; got ${finding.got}${finding.request ? ` (${finding.request})` : ''}`;
}

const MAX_FINDINGS = 5;

/** A check found the implementation at fault. */
export class CheckFailure extends Error {
  constructor(readonly findings: Finding[]) {
    const shownFindings = findings.slice(0, MAX_FINDINGS).map(describeFinding);
    if (findings.length > MAX_FINDINGS) shownFindings.push(`and ${findings.length - MAX_FINDINGS} more (--json and --junit give every one)`);
    super(shownFindings.join('; '));
    this.name = 'CheckFailure';
  }
}

/**
 * A generated check found the implementation at fault: its findings, the seed the inputs came from
 * (`--seed` replays the run) and the smallest case the kit shrank them to, one request a line.
 */
export class ReplayableFailure extends CheckFailure {
  constructor(
    findings: Finding[],
    readonly seed: number,
    readonly minimalCase: string[],
  ) {
    super(findings);
    const steps = minimalCase.length === 1 ? minimalCase[0] : minimalCase.map((line, index) => `${index + 1}) ${line}`).join(' ');
    this.message = `${this.message}; seed ${seed} (--seed ${seed} replays it); the smallest case: ${steps}`;
  }
}

/** A check cannot run here (an input is missing, the implementation does not offer an unstated operation it needs). */
export class CheckSkipped extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CheckSkipped';
  }
}

/**
 * The kit's own setup could not be done (an input it sends was refused, a report never finished):
 * every check that needs it is inconclusive, with the reason and what to supply, never failed.
 */
export class SetupError extends Error {
  constructor(
    message: string,
    /** What the user can give so that it works: a fixture, a flag. */
    readonly supply?: string,
  ) {
    super(supply ? `${message}; ${supply}` : message);
    this.name = 'SetupError';
  }
}

const ROLE_NAMES: Record<Exchange['role'], string> = {
  api: 'with the test key',
  admin: 'with the admin key',
  readOnly: 'with the read-only key',
  ipLocked: 'with the IP-locked key',
  other: "with the other workspace's key",
  otherAdmin: "with the other workspace's admin key",
  revocable: 'with the key to revoke',
  rateLimit: 'with the rate-limit key',
  none: 'without a valid key',
};

export function requestLine(exchange: Pick<Exchange, 'method' | 'path' | 'role'>): string {
  return `${exchange.method} ${exchange.path} ${ROLE_NAMES[exchange.role]}`;
}

const MAX_SHOWN = 160;
/** How much of a body is read for what is shown of it: a body of 60 MiB is not copied whole to show 160 characters. */
const SHOWN_FROM = 64 * 1024;

/**
 * `text` as a string of its own. A slice of a string is a view of it in V8, which holds the whole in
 * memory: 160 characters of an answer of 60 MiB in a check's detail would keep the answer for the
 * rest of the run.
 */
function detached(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}

/** The start of `text`, at most MAX_SHOWN characters and an ellipsis, as a string of its own. */
function start(text: string, more: boolean): string {
  return detached(more || text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);
}

/** A response as a failure shows it: the status and the start of the body. */
export function shown(exchange: Pick<Exchange, 'status' | 'body'>): string {
  const body = exchange.body.slice(0, SHOWN_FROM).replace(/\s+/g, ' ').trim();
  return `${exchange.status}${body ? ` ${start(body, exchange.body.length > SHOWN_FROM)}` : ' with an empty body'}`;
}

export function shownValue(value: unknown): string {
  return start(value === undefined ? 'nothing' : JSON.stringify(value), false);
}

/** Collects the findings of one check, then fails it once with all of them. */
export class Findings {
  readonly list: Finding[] = [];

  /** Records a finding unless `ok`; returns `ok`. */
  expect(ok: boolean, expected: string, got: string, exchange?: Pick<Exchange, 'method' | 'path' | 'role'>): boolean {
    if (!ok) this.list.push({ expected, got, request: exchange && requestLine(exchange) });
    return ok;
  }

  add(finding: Finding): void {
    this.list.push(finding);
  }

  /** Throws a CheckFailure if anything was found. */
  done(): void {
    if (this.list.length > 0) throw new CheckFailure(this.list);
  }
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** Whether an error body names `code`, wherever it does (namesCode: the CLI reads a code the same way). */
export function bodyNamesCode(exchange: Pick<Exchange, 'json' | 'body'>, code: string): boolean {
  return exchange.json !== undefined && namesCode(exchange.json, code);
}

/** An ISO 8601 timestamp in UTC: `Z` or a zero offset (`+00:00`, `+0000`, `-00:00`). */
export const UTC_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]00:?00)$/;
