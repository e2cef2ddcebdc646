import { retryAfter, statedWait } from './stated-wait.js';

interface Answer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
}

/** The most a request is sent again on 429s, and the longest one 429 may ask the kit to wait. */
const MAX_RATE_LIMIT_RETRIES = 20;
export const MAX_WAIT_MS = 120_000;
/** A 429 that says not how long: 5 s, doubling to 40 s. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 5_000;
/** The most a request is sent again on a gateway's transient 502, 503 or 504, and the longest the kit waits for one request's in all. */
const MAX_BLIP_RETRIES = 3;
const MAX_BLIP_WAIT_MS = 60_000;
/** Methods a second sending of which does what the first did (RFC 9110, 9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * A request the implementation kept answering as transient (a 429, or a 502, 503 or 504 with
 * Retry-After) past what the kit waits: the check that needed it is inconclusive, with this reason,
 * never failed, for the answer is no verdict of the implementation's on the request.
 */
export class TransientAnswer extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransientAnswer';
  }
}

const seconds = (ms: number) => `${Math.ceil(ms / 1000)} s`;

/** Whether an answer is transient, no verdict of the implementation's on the request: a 429, or a 502, 503 or 504 with Retry-After. */
export function isTransient(answer: Answer, now: number): boolean {
  return answer.status === 429 || ([502, 503, 504].includes(answer.status) && retryAfter(answer.headers, now) !== undefined);
}

/** A wait before a request is sent again: how long, the answer that asked for it, and the line that says so. */
interface Retry {
  waitMs: number;
  why: string;
  line: string;
}

/**
 * What the kit does with each answer to one request it sends paced: a 429 is waited out as asked
 * (Retry-After or X-RateLimit-Reset, else 5 s doubling) and sent again, whatever the method, for a
 * 429 was not processed. A 502, 503 or 504 with Retry-After, a gateway's transient answer, is
 * waited out and sent again: a 503 whatever the method (the service did not take the request on), a
 * 502 or 504 only when the method is idempotent, for the request may have been processed behind the
 * gateway. Without Retry-After, a 5xx is the implementation's answer. Each kind is bounded in
 * attempts and in time; past them, and for a 502 or 504 to a POST, a TransientAnswer is thrown.
 */
export class TransientRetries {
  private rateLimited = 0;
  private blips = 0;
  private blipWaitedMs = 0;

  constructor(
    private readonly request: { method: string; path: string },
    private readonly now: () => number,
  ) {}

  /** How long to wait before sending the request again, and why; undefined when `answer` is final. */
  after(answer: Answer): Retry | undefined {
    if (!isTransient(answer, this.now())) return undefined;
    if (answer.status === 429) return this.afterRateLimit(answer);
    return this.afterBlip(answer.status, retryAfter(answer.headers, this.now())!);
  }

  private get requestLine(): string {
    return `${this.request.method} ${this.request.path}`;
  }

  private afterRateLimit(answer: Answer): Retry {
    const stated = statedWait(answer.headers, this.now());
    if (this.rateLimited >= MAX_RATE_LIMIT_RETRIES)
      throw new TransientAnswer(`${this.requestLine} was still answered 429 after ${this.rateLimited + 1} attempts`);
    if (stated && stated.ms > MAX_WAIT_MS)
      throw new TransientAnswer(
        `${this.requestLine} answered 429 asking to wait ${seconds(stated.ms)} (${stated.header}), longer than the kit waits (${seconds(MAX_WAIT_MS)})`,
      );
    const waitMs = stated?.ms ?? DEFAULT_RATE_LIMIT_WAIT_MS * 2 ** Math.min(this.rateLimited, 3);
    this.rateLimited++;
    return {
      waitMs,
      why: `a 429 to ${this.requestLine}`,
      line: `429 on ${this.requestLine}: waiting ${seconds(waitMs)} (${stated?.header ?? 'no wait stated'}) before sending it again`,
    };
  }

  private afterBlip(status: number, waitMs: number): Retry {
    const attempts = `${this.blips + 1} attempt${this.blips === 0 ? '' : 's'}`;
    const transient = `${status} with Retry-After on ${this.requestLine}`;
    if (status !== 503 && !IDEMPOTENT.has(this.request.method))
      throw new TransientAnswer(`${transient}: not sent again, for a ${this.request.method} may have been processed behind a ${status}`);
    if (this.blips >= MAX_BLIP_RETRIES) throw new TransientAnswer(`${transient}, ${attempts} (${seconds(this.blipWaitedMs)} waited)`);
    if (this.blipWaitedMs + waitMs > MAX_BLIP_WAIT_MS)
      throw new TransientAnswer(
        `${transient}, ${attempts}: it asked to wait ${seconds(waitMs)}, beyond the ${seconds(MAX_BLIP_WAIT_MS)} the kit waits for one request`,
      );
    this.blips++;
    this.blipWaitedMs += waitMs;
    return {
      waitMs,
      why: `a ${status} to ${this.requestLine}`,
      line: `${status} on ${this.requestLine}: waiting ${seconds(waitMs)} (Retry-After) before sending it again`,
    };
  }
}
