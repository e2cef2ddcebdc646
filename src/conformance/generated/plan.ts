/**
 * What a run's generated checks share: the seed everything they generate comes from (`--seed`
 * replays it), and how many requests they may send (`--generated-requests`, else what the
 * implementation's rate-limit window leaves the kit), shared out among the checks selected.
 */
import { randomInt } from 'node:crypto';
import type { CheckId } from '../catalogue.js';

export type GeneratedCheckId = Extract<CheckId, `generated.${string}`>;

/** Each generated check's share of the run's generated requests. */
const SHARES: Record<GeneratedCheckId, number> = {
  'generated.inputs-valid': 0.1,
  'generated.inputs-invalid': 0.13,
  'generated.no-server-error': 0.06,
  'generated.credentials': 0.25,
  'generated.sequences': 0.46,
};

/**
 * The fewest requests with which each check judges anything (one report from a valid input and its
 * read; one invalid input and the list; one request of its own; its report, key and one cell; one
 * sequence): a check whose share is less runs not at all, and leaves its share to the others.
 */
const FEWEST: Record<GeneratedCheckId, number> = {
  'generated.inputs-valid': 3,
  'generated.inputs-invalid': 5,
  'generated.no-server-error': 2,
  'generated.credentials': 7,
  'generated.sequences': 16,
};

export const GENERATED_CHECKS = Object.keys(SHARES) as GeneratedCheckId[];

export function isGenerated(id: string): id is GeneratedCheckId {
  return id in SHARES;
}

/**
 * The most generated requests of a run, whatever the rate limit allows: with `--fast` a run of
 * seconds against an implementation on the network's doorstep, without it some seconds more.
 */
export const MAX_GENERATED_REQUESTS = { fast: 300, full: 800 };

/**
 * The requests the kit keeps, in --fast, for what follows the generated checks: deleting what the
 * run made and the checks that look at the whole run once it is done.
 */
const AFTER_GENERATED = 8;

/** The seed of a run: `--seed`, else a fresh one, printed so that the run can be replayed. */
export function runSeed(given: number | undefined): number {
  return given ?? randomInt(0, 2 ** 31 - 1);
}

/** A check's own seed, from the run's: each check draws from a stream of its own (FNV-1a of its id). */
export function checkSeed(seed: number, id: string): number {
  let hash = 0x811c9dc5;
  for (const character of id) hash = Math.imul(hash ^ character.charCodeAt(0), 0x01000193);
  return ((hash ^ seed) >>> 0) & 0x7fffffff;
}

/** What an answer showed of the test key's rate-limit window: what was left of it, what the kit leaves to others, and its size. */
export interface WindowRoom {
  remaining: number;
  reserved: number;
  window: number;
}

/**
 * How many requests the generated checks send in all: as many as given (`--generated-requests`);
 * else, with --fast, what the window the rest of the run used leaves the kit (a run of seconds does
 * not wait for a window), less what the run still sends after them; without --fast, the kit's share
 * of one window; never more than MAX_GENERATED_REQUESTS. Unknown windows (no X-RateLimit-Remaining)
 * allow the most.
 */
export function generatedRequests(options: { given: number | undefined; fast: boolean; room: WindowRoom | undefined; stillToSend: number }): number {
  if (options.given !== undefined) return options.given;
  const most = options.fast ? MAX_GENERATED_REQUESTS.fast : MAX_GENERATED_REQUESTS.full;
  const { room } = options;
  if (!room) return most;
  const allowed = options.fast ? room.remaining - room.reserved - options.stillToSend - AFTER_GENERATED : room.window - room.reserved;
  return Math.max(0, Math.min(most, allowed));
}

/** The requests a generated check may still send: its share of the run's, and a part more for shrinking a failure to its smallest case. */
export class CheckBudget {
  private sent = 0;

  constructor(
    readonly allowance: number,
    /** The requests shrinking a failure may add: each smaller case the shrinker tries is sent again. */
    private readonly forShrinking: number,
  ) {}

  get spent(): number {
    return this.sent;
  }

  /** Counts `requests` to be sent, if the allowance has room for them (`shrinking`: with the part for shrinking too). */
  take(requests: number, shrinking = false): boolean {
    const limit = this.allowance + (shrinking ? this.forShrinking : 0);
    if (this.sent + requests > limit) return false;
    this.sent += requests;
    return true;
  }
}

/** A 5xx a generated request got, with the request as a person sends it again. */
export interface ServerError {
  check: GeneratedCheckId;
  step: string;
  got: string;
}

/** The seed of a run's generated checks, the requests each may send, and the 5xx answers they got. */
export class GeneratedRun {
  private readonly budgets = new Map<GeneratedCheckId, CheckBudget>();
  readonly serverErrors: ServerError[] = [];
  /** What the robustness check's own requests came to (a note, or what it threw), judged with every other 5xx once all are done. */
  robustness: { note: string } | { error: unknown } | undefined;

  constructor(
    readonly seed: number,
    /** The requests of all the generated checks selected. */
    readonly requests: number,
    selected: readonly GeneratedCheckId[],
    /** Why `requests` is what it is, for the checks' notes. */
    readonly why: string,
  ) {
    for (const [id, allowance] of allowances(requests, selected)) this.budgets.set(id, new CheckBudget(allowance, Math.ceil(allowance / 2)));
  }

  budget(id: GeneratedCheckId): CheckBudget {
    return this.budgets.get(id) ?? new CheckBudget(0, 0);
  }
}

/**
 * Each check's share of `requests`: where a share is too small for a check to judge anything, the
 * check that needs the most goes without, and the others share what it leaves, so that a small
 * budget (a Pro plan with --fast, a small --generated-requests) runs some checks in full rather
 * than none.
 */
function allowances(requests: number, selected: readonly GeneratedCheckId[]): Map<GeneratedCheckId, number> {
  let funded = [...selected];
  for (;;) {
    const total = funded.reduce((sum, id) => sum + SHARES[id], 0);
    const shares = new Map(funded.map((id) => [id, Math.floor((requests * SHARES[id]) / total)]));
    const short = funded.filter((id) => shares.get(id)! < FEWEST[id]);
    if (short.length === 0) return shares;
    const neediest = short.reduce((most, id) => (FEWEST[id] > FEWEST[most] ? id : most));
    funded = funded.filter((id) => id !== neediest);
  }
}
