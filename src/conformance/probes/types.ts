import type { CheckId } from '../catalogue.js';
import type { KitContext } from '../context.js';

/**
 * One check that Pact cannot express. It returns a short note when the implementation passes,
 * and throws CheckFailure (at fault), CheckSkipped (cannot run here) or SetupError (setup failed).
 */
export type Probe = (context: KitContext) => Promise<string | void>;

export interface ProbeSet {
  /** Run while the rest of the run goes on. */
  probes: Partial<Record<CheckId, Probe>>;
  /** Run when everything else is done: they look at every answer and every delivery of the run. */
  final?: Partial<Record<CheckId, Probe>>;
}
