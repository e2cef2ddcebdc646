import { MESSAGE_OVERHEAD, PARSED_BODY_FACTOR } from './kept-cost.js';

/**
 * What the kit keeps at most of a run's answers, for the checks that read them after the fact (the
 * strict checks of every answer's body), each counted as `costOf` says. A `--level strict --fast` run
 * against the sandbox keeps some 1.2 MiB as counted; a body past the budget is dropped (its status, headers and
 * request kept), and counted.
 */
const KEPT_ANSWER_BYTES = 64 * 1024 * 1024;

/** What the budget counts of an answer, and what it keeps of one past it. */
interface Answer {
  headers: Record<string, string>;
  body: string;
  json: unknown;
  /** Set on the copy kept of an answer whose body was dropped. */
  bodyDropped?: true | undefined;
}

/** An answer's headers, its body as text (two bytes a character at most) and its parsed copy, and an overhead, as the receiver counts a delivery. */
function costOf(answer: Answer): number {
  let headers = 0;
  for (const [name, value] of Object.entries(answer.headers)) headers += name.length + value.length;
  return MESSAGE_OVERHEAD + headers + answer.body.length * (2 + (answer.json === undefined ? 0 : PARSED_BODY_FACTOR));
}

/** The answers of a run as the kit keeps them: whole while they fit the budget, without their body past it. */
export class KeptAnswers {
  private bytes = 0;
  private dropped = 0;

  constructor(readonly limitBytes = KEPT_ANSWER_BYTES) {}

  /** What to keep of `answer`: itself when it fits, else a copy without its body (which the caller still has, to read at once). */
  keep<T extends Answer>(answer: T): T {
    const cost = costOf(answer);
    if (this.bytes + cost <= this.limitBytes) {
      this.bytes += cost;
      return answer;
    }
    const kept: T = { ...answer, body: '', json: undefined, bodyDropped: true };
    this.bytes += costOf(kept);
    this.dropped++;
    return kept;
  }

  /** For the run record. */
  get record(): { bytes: number; limit_bytes: number; bodies_dropped: number } {
    return { bytes: this.bytes, limit_bytes: this.limitBytes, bodies_dropped: this.dropped };
  }

  /** Why a check cannot judge the `dropped` of its `of` answers whose body it needed. */
  describeDropped(dropped: number, of: number): string {
    return `the bodies of ${dropped} of the ${of} answers it reads were not kept: the kit keeps at most ${this.limitBytes / 1024 / 1024} MiB of a run's answers (each counted with its text and its parsed JSON), and this run's answers came to more (${this.dropped} bodies dropped)`;
  }
}
