/**
 * A generated check as a fast-check property against the implementation: each value a trial that
 * sends its requests and records what it found; a failing trial is shrunk to the smallest that
 * still fails, each smaller case sent again, within the check's budget; the failure names the seed
 * and the smallest case's requests, as a person sends them again.
 */
import { inspect } from 'node:util';
import fc from 'fast-check';
import type { KitContext } from '../context.js';
import type { Exchange } from '../http.js';
import { type Finding, ReplayableFailure, SetupError, shown } from '../outcome.js';
import { type CheckBudget, checkSeed, type GeneratedCheckId } from './plan.js';
import { type GeneratedRequest, replayOf, sendGenerated } from './requests.js';

/** The check's budget is spent: the trial stops where it is. */
class BudgetSpent extends Error {}

/** The requests one trial sent (each as a person sends it again) and what it found. */
export class Trial {
  readonly steps: string[] = [];
  readonly findings: Finding[] = [];

  constructor(
    private readonly context: KitContext,
    private readonly id: GeneratedCheckId,
    private readonly budget: CheckBudget,
    /** Whether this trial is a smaller case the shrinker tries, which may use the budget's part for shrinking. */
    private readonly shrinking: boolean,
  ) {}

  /**
   * Sends a request of the trial, counted against the budget (`cost`: a request that may make a
   * report counts the DELETE that removes it at the end of the run too); `note` follows its replay
   * (`# answered 201: REPORT_1`).
   */
  async send(request: GeneratedRequest, cost = 1): Promise<Exchange> {
    if (!this.budget.take(cost, this.shrinking)) throw new BudgetSpent();
    const exchange = await sendGenerated(this.context, this.id, request);
    const step = replayOf(request);
    this.steps.push(`${step} # answered ${exchange.status}`);
    // What the client returns is the implementation's own answer: a gateway's transient 5xx was waited out, or thrown.
    if (exchange.status >= 500) this.context.generated!.serverErrors.push({ check: this.id, step, got: shown(exchange) });
    return exchange;
  }

  /** Adds words to the last step's note (what the answer made, under which name the next steps use it). */
  annotate(note: string): void {
    const last = this.steps.length - 1;
    if (last >= 0) this.steps[last] = `${this.steps[last]!}${note}`;
  }

  /** Records a finding unless `ok`; returns `ok`. */
  expect(ok: boolean, expected: string, got: string): boolean {
    if (!ok) this.findings.push({ expected, got, request: this.steps.at(-1)?.replace(/ # answered .*$/, '') });
    return ok;
  }
}

export interface PropertyCheck<T> {
  context: KitContext;
  id: GeneratedCheckId;
  arbitrary: fc.Arbitrary<T>;
  /** How many values to try: what the budget affords, at the trial's cost. */
  runs: number;
  /** Tells apart the properties of one check, each drawing from a stream of its own. */
  salt?: string;
  /** Sends what the value asks and records what it finds; throws SetupError or TransientAnswer when the kit cannot judge. */
  trial(value: T, trial: Trial): Promise<void>;
}

/** What a property's runs came to: how many were tried, whether the budget cut them short, and the smallest failing trial. */
export interface PropertyRun {
  tried: number;
  seed: number;
  cutShort: boolean;
  smallest?: Trial | undefined;
}

/**
 * Runs the property from the check's seed: `runs` values, then, on a failure, smaller and smaller
 * values (fast-check's shrinking) while they still fail and the budget lasts. Throws the smallest
 * failure found as a ReplayableFailure; an error that leaves the kit unable to judge (a setup that
 * could not be made, an answer that stayed transient) ends the runs and is thrown as it is.
 */
export async function checkProperty<T>(check: PropertyCheck<T>): Promise<PropertyRun> {
  const run = await runProperty(check);
  if (run.smallest) throw new ReplayableFailure(run.smallest.findings, run.seed, run.smallest.steps);
  return run;
}

/** As checkProperty, but the smallest failing trial is returned rather than thrown. */
export async function runProperty<T>(check: PropertyCheck<T>): Promise<PropertyRun> {
  const generated = check.context.generated!;
  const budget = generated.budget(check.id);
  const seed = checkSeed(generated.seed, `${check.id}${check.salt ?? ''}`);
  let smallest: Trial | undefined;
  let stopped: Error | undefined;
  let tried = 0;
  let cutShort = false;
  const property = fc.asyncProperty(check.arbitrary, async (value) => {
    if (stopped !== undefined) return true;
    const trial = new Trial(check.context, check.id, budget, smallest !== undefined);
    try {
      await check.trial(value, trial);
    } catch (error) {
      if (!(error instanceof BudgetSpent)) {
        stopped = error instanceof Error ? error : new SetupError(`the check could not complete: ${inspect(error)}`);
        return true;
      }
      // A case the budget cut short counts for what it found; shrinking stops at the last that failed in full.
      if (smallest === undefined) cutShort = true;
      if (trial.findings.length === 0 || smallest !== undefined) return true;
    }
    if (smallest === undefined) tried++;
    if (trial.findings.length === 0) return true;
    smallest = trial;
    return false;
  });
  if (check.runs > 0) await fc.check(property, { seed, numRuns: check.runs });
  if (stopped !== undefined) throw stopped;
  return { tried, seed: generated.seed, cutShort, smallest };
}
