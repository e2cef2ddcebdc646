import type { Server } from 'node:http';
import { causeCode } from '../api/errors.js';
import type { Network } from '../api/network.js';
import { exchange } from '../api/transport.js';
import { type Clock, systemClock } from '../core/clock.js';
import { escapeControls } from '../core/control-characters.js';
import { redactText } from '../core/redaction.js';
import type { CheckId } from './catalogue.js';
import { KeptAnswers } from './kept-answers.js';
import { DEFAULT_RESERVE } from './kit-keys.js';
import { RequestCap, type RequestRate } from './request-rate.js';
import { DEFAULT_RUN_LIMITS, RunBudget, type RunLimits, RunStopped } from './run-budget.js';
import { statedWait } from './stated-wait.js';
import { isTransient, MAX_WAIT_MS, TransientRetries } from './transient-answers.js';

/** Which of the kit's credentials a request carried; `none` for a request without a usable key. */
export type Role = 'api' | 'admin' | 'readOnly' | 'ipLocked' | 'other' | 'otherAdmin' | 'revocable' | 'rateLimit' | 'none';

/** What a request is for: the check that sent it, or the part of the kit that did (fixtures, Pact, setup, cleanup). */
export type Purpose = CheckId | 'fixture' | 'pact' | 'preflight' | 'cleanup' | 'revocation' | 'auth.revocation';

/** One request to the implementation and its answer, as every check sees it. */
export interface Exchange {
  method: string;
  /** Path and query, relative to the base URL. */
  path: string;
  role: Role;
  /** Which part of the kit sent it (a check id, `fixture`, `pact`). */
  purpose: Purpose;
  /** The request body as text, for the checks that need to know what was asked (an update, a creation). */
  requestBody: string | undefined;
  status: number;
  /** Response headers, lower-case names. */
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: unknown;
  at: number;
  /** Set in `exchanges` when the run's answers were past what the kit keeps: `body` and `json` are empty there (not in the answer the sender got). */
  bodyDropped?: true | undefined;
}

export interface SendOptions {
  method: string;
  path: string;
  /** The whole Authorization header, or null to send none. */
  authorization: string | null;
  role: Role;
  purpose: Purpose;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /**
   * The requests paced together, one after another (default: those of the same Authorization). The
   * generated checks send many headers that authenticate nothing, all counted against one window.
   */
  bucket?: string;
}

export interface ImplementationClientOptions {
  baseUrl: URL;
  /** The proxies of the run's environment, and whom it trusts (the operator's CA, or anyone with `--insecure`). */
  network: Network;
  timeoutMs?: number;
  /** Lines for people (waits for the rate limit), on stderr. */
  log?: (line: string) => void;
  /** Secrets to redact from anything logged. */
  secrets?: string[];
  /** The rate-limit window: part 8 counts requests per minute (tests shorten it). */
  windowMs?: number;
  /** The share of a rate-limit window the kit leaves to the workspace's other clients, from 0 to below 1 (`--rate-limit-reserve`); DEFAULT_RESERVE unless given. */
  reserve?: number;
  /** The kit's own cap on its request rate (`--rate-limit`), whatever the implementation allows. */
  rate?: RequestRate | undefined;
  /** The run's budgets for waiting at the implementation's request and for transient answers in a row; DEFAULT_RUN_LIMITS unless given. */
  limits?: Partial<RunLimits> | undefined;
  /** What the run keeps of its answers at most, as KeptAnswers counts it; KEPT_ANSWER_BYTES unless given. */
  keptAnswerBytes?: number | undefined;
  clock?: Clock;
}

const WINDOW_MS = 60_000;
const TIMEOUT_MS = 30_000;
const PLAIN_HTTP_TIMEOUT_MS = 10_000;

interface Bucket {
  /** Once the implementation said this credential has no request left for the kit: when it may send again, what it said, and why then. */
  pause: { until: number; remaining: number; why: string } | undefined;
  /** Requests of one credential go one after another, so the count the implementation reports stays meaningful. */
  queue: Promise<unknown>;
  /**
   * The credential's largest X-RateLimit-Remaining of the run: its window less one, as far as its
   * answers show it. A credential's own, as the kit's keys may be of workspaces on other plans.
   */
  largestRemaining: number;
  /** The X-RateLimit-Remaining of the credential's last paced answer that gave one. */
  remaining: number | undefined;
}

/** A body as JSON; undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** When `run` has settled, with nothing: a credential's queue must not hold its last answer (up to 64 MiB) for the rest of the run. */
function settled(run: Promise<unknown>): Promise<void> {
  return run.then(
    () => undefined,
    () => undefined,
  );
}

/** An answer's X-RateLimit-Remaining as a number; undefined when it has none that reads as one. */
function remainingOf(exchange: Exchange): number | undefined {
  const value = exchange.headers['x-ratelimit-remaining']?.trim();
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** The answer to a plain HTTP request, or why there was none. */
export type PlainAnswer = { status: number; headers: Record<string, string>; body: string; url: string } | { refused: string; url: string };

/**
 * The kit's only way to the implementation: HTTPS with the operator's CA (or none checked with
 * `--insecure`), paced by X-RateLimit-Remaining per credential, waiting out a 429 and a gateway's
 * transient 502, 503 or 504 as they ask, within the run's budgets (RunBudget), and recording every
 * exchange for the checks that look at all answers (X-RateLimit-Remaining, strict), their bodies
 * within a budget of memory (KeptAnswers).
 */
export class ImplementationClient {
  readonly exchanges: Exchange[] = [];
  readonly kept: KeptAnswers;
  readonly budget: RunBudget;
  private plainRequests = 0;
  private readonly buckets = new Map<string, Bucket>();
  private readonly prefix: string;
  private readonly clock: Clock;
  private readonly cap: RequestCap | undefined;

  constructor(private readonly options: ImplementationClientOptions) {
    this.prefix = options.baseUrl.pathname.replace(/\/$/, '');
    this.clock = options.clock ?? systemClock;
    this.cap = options.rate && new RequestCap(options.rate, this.clock);
    this.kept = new KeptAnswers(options.keptAnswerBytes);
    const limits = {
      waitMs: options.limits?.waitMs ?? DEFAULT_RUN_LIMITS.waitMs,
      transientInARow: options.limits?.transientInARow ?? DEFAULT_RUN_LIMITS.transientInARow,
    };
    this.budget = new RunBudget(limits, this.clock);
  }

  get baseUrl(): URL {
    return this.options.baseUrl;
  }

  /** The base URL as given, its path included, without a trailing slash (`https://host:port/visa-api`): what messages name. */
  get baseUrlText(): string {
    return `${this.options.baseUrl.origin}${this.prefix}`;
  }

  get network(): Network {
    return this.options.network;
  }

  /** Every request sent to the implementation: each attempt over HTTPS, and those in plain HTTP. */
  get requestsSent(): number {
    return this.exchanges.length + this.plainRequests;
  }

  private bucket(options: Pick<SendOptions, 'authorization' | 'bucket'>): Bucket {
    const name = options.bucket ?? options.authorization ?? '';
    let bucket = this.buckets.get(name);
    if (!bucket) {
      bucket = { pause: undefined, queue: Promise.resolve(), largestRemaining: 0, remaining: undefined };
      this.buckets.set(name, bucket);
    }
    return bucket;
  }

  /** A line for people: a path may carry an id the implementation chose, so its control characters are shown escaped. */
  private log(line: string): void {
    this.options.log?.(escapeControls(redactText(line, this.options.secrets ?? [])));
  }

  /**
   * Sends one request, after the credential's earlier ones, and returns its final answer: a 429, or a
   * gateway's 502, 503 or 504 with Retry-After, is waited out and sent again, within bounds
   * (TransientRetries); a request still answered so is a TransientAnswer.
   */
  send(options: SendOptions): Promise<Exchange> {
    const bucket = this.bucket(options);
    const run = bucket.queue.then(() => this.sendPaced(options, bucket));
    bucket.queue = settled(run);
    return run;
  }

  /**
   * The requests of the window the kit leaves to the workspace's other clients: a share of the
   * window as the credential's paced answers show it (its largest X-RateLimit-Remaining of the run,
   * and the request that answer counted). A client beside the kit on the same workspace keeps at least those.
   */
  private reserved(bucket: Bucket, remaining: number): number {
    bucket.largestRemaining = Math.max(bucket.largestRemaining, remaining);
    return Math.floor((bucket.largestRemaining + 1) * (this.options.reserve ?? DEFAULT_RESERVE));
  }

  /** After a paced answer: the credential pauses once X-RateLimit-Remaining is down to the share the kit leaves to others. */
  private notePause(bucket: Bucket, exchange: Exchange): void {
    const remaining = remainingOf(exchange);
    if (remaining === undefined) {
      bucket.pause = undefined;
      return;
    }
    const reserved = this.reserved(bucket, remaining);
    bucket.remaining = remaining;
    bucket.pause = remaining <= reserved ? this.pauseAfter(exchange, remaining, reserved) : undefined;
  }

  /**
   * What the last paced answer to a credential showed of its rate-limit window: the requests left in
   * it, the share the kit leaves to others, and the window as the run's answers show it; undefined
   * where no answer gave X-RateLimit-Remaining.
   */
  windowRoom(authorization: string): { remaining: number; reserved: number; window: number } | undefined {
    const bucket = this.buckets.get(authorization);
    const remaining = bucket?.remaining;
    if (bucket === undefined || remaining === undefined) return undefined;
    return { remaining, reserved: this.reserved(bucket, remaining), window: bucket.largestRemaining + 1 };
  }

  /**
   * Once an answer said the credential has no request left for the kit (X-RateLimit-Remaining down
   * to the share it leaves to others, or a provoked 429), the next waits for the window to end: as
   * long as that answer said (X-RateLimit-Reset, Retry-After; the longer of the two), at most
   * MAX_WAIT_MS. When it said nothing, a minute after the answer: part 8 counts requests per minute
   * without saying how, and a window, fixed or sliding, that counted the last request began no later
   * than that request's answer.
   */
  private pauseAfter(exchange: Exchange, remaining: number, reserved: number): Bucket['pause'] {
    const stated = statedWait(exchange.headers, exchange.at);
    const until = stated ? exchange.at + Math.min(stated.ms, MAX_WAIT_MS) : exchange.at + (this.options.windowMs ?? WINDOW_MS);
    const why = stated ? `until the end of the window its ${stated.header} gives` : 'a minute after the answer (no reset stated)';
    return { until, remaining, why: remaining > 0 ? `${why}: the kit leaves the last ${reserved} of the window to others` : why };
  }

  private async pace(bucket: Bucket): Promise<void> {
    if (!bucket.pause) return;
    const waitMs = bucket.pause.until - this.clock.now();
    if (waitMs > 0) {
      const { remaining } = bucket.pause;
      await this.waitAsked(
        waitMs,
        `an answer with X-RateLimit-Remaining ${remaining}`,
        `X-RateLimit-Remaining is ${remaining}: waiting ${Math.ceil(waitMs / 1000)} s before the next request, ${bucket.pause.why}`,
      );
    }
    bucket.pause = undefined;
  }

  /**
   * Waits as the implementation asked (`why`: the answer that did; `line`: the wait, for people),
   * within the run's budget for waiting: past it, or once the run has stopped, a RunStopped, at once.
   */
  async waitAsked(ms: number, why: string, line: string): Promise<void> {
    this.budget.wait(ms, why);
    this.log(line);
    await this.clock.sleep(ms, this.budget.signal).catch((error: unknown) => {
      throw this.budget.stopped ?? error;
    });
  }

  /** Once the run has stopped, only its cleanup is still sent (each request once, without waiting). */
  private throwIfStopped(purpose?: Purpose): void {
    const stopped = this.budget.stopped;
    if (stopped && purpose !== 'cleanup') throw stopped;
  }

  /**
   * Sends one request at once, after the credential's earlier ones, without waiting for the rate
   * limit and without sending it again on a 429: for the check that provokes one.
   */
  sendUnpaced(options: SendOptions): Promise<Exchange> {
    const bucket = this.bucket(options);
    const run = bucket.queue.then(async () => {
      this.throwIfStopped(options.purpose);
      const exchange = await this.sendOnce(options);
      // Not a measure of the window the kit shares: the key may be one of its own.
      const remaining = remainingOf(exchange) ?? 0;
      bucket.pause = exchange.status === 429 || remaining === 0 ? this.pauseAfter(exchange, remaining, 0) : undefined;
      return exchange;
    });
    bucket.queue = settled(run);
    return run;
  }

  private async sendPaced(options: SendOptions, bucket: Bucket): Promise<Exchange> {
    const retries = new TransientRetries({ method: options.method, path: this.prefix + options.path }, () => this.clock.now());
    for (;;) {
      this.throwIfStopped(options.purpose);
      // The cleanup after a stop is sent at once: the run waits no more.
      if (!this.budget.stopped) await this.pace(bucket);
      const exchange = await this.sendOnce(options);
      this.notePause(bucket, exchange);
      const transient = isTransient(exchange, this.clock.now());
      this.budget.answered(transient ? { status: exchange.status, request: `${options.method} ${options.path}` } : undefined);
      const retry = retries.after(exchange);
      if (!retry) return exchange;
      await this.waitAsked(retry.waitMs, retry.why, retry.line);
    }
  }

  /** The deadline of one exchange: its own, and the run's stop (but for the cleanup after it). */
  private exchangeSignal(timeoutMs: number): AbortSignal {
    const timeout = AbortSignal.timeout(timeoutMs);
    return this.budget.stopped ? timeout : AbortSignal.any([timeout, this.budget.signal]);
  }

  private async sendOnce(options: SendOptions): Promise<Exchange> {
    await this.cap?.take();
    this.throwIfStopped(options.purpose);
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.authorization !== null) headers.authorization = options.authorization;
    const url = new URL(this.prefix + options.path, this.options.baseUrl.origin);
    const answer = await exchange(
      { method: options.method, url: url.href, headers, body: options.body },
      this.exchangeSignal(this.options.timeoutMs ?? TIMEOUT_MS),
      this.options.network,
    );
    const sent: Exchange = {
      method: options.method,
      path: options.path,
      role: options.role,
      purpose: options.purpose,
      requestBody: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : Buffer.from(options.body).toString('latin1'),
      status: answer.status,
      headers: answer.headers.all(),
      body: answer.text,
      json: parseJson(answer.text),
      at: this.clock.now(),
    };
    this.exchanges.push(this.kept.keep(sent));
    return sent;
  }

  /**
   * One request in plain HTTP to the implementation's host: on the base URL's port when it names
   * one, else on port 80 (or 443, the HTTPS port itself, with `onHttpsPort`). A refused or reset
   * connection is `{ refused }`.
   */
  async plainHttp(path: string, authorization: string, onHttpsPort = false): Promise<PlainAnswer> {
    const base = this.options.baseUrl;
    // A deployment's plain HTTP is on port 80 when its HTTPS is on the default port; else on the same port, as the sandbox's is.
    const port = Number(base.port || (onHttpsPort ? 443 : 80));
    const url = `http://${base.hostname.includes(':') ? `[${base.hostname}]` : base.hostname}:${port}${this.prefix}${path}`;
    await this.cap?.take();
    this.throwIfStopped();
    this.plainRequests++;
    try {
      const answer = await exchange(
        { method: 'GET', url, headers: { authorization, accept: 'application/json' } },
        this.exchangeSignal(PLAIN_HTTP_TIMEOUT_MS),
        this.options.network,
      );
      return { status: answer.status, headers: answer.headers.all(), body: answer.text, url };
    } catch (error) {
      if (error instanceof RunStopped) throw error;
      const refused =
        (error as Error).name === 'TimeoutError' ? `no answer within ${PLAIN_HTTP_TIMEOUT_MS / 1000} s` : (causeCode(error) ?? (error as Error).message);
      return { refused, url };
    }
  }
}

/** Stops a server and drops its open (keep-alive) connections. */
export function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return Promise.resolve();
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
