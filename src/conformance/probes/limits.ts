import type { KitContext } from '../context.js';
import { CheckSkipped, Findings, isSuccess } from '../outcome.js';
import type { ProbeSet } from './types.js';

/** Every answer of the run, of one kind, must carry X-RateLimit-Remaining (part 8). */
function everyAnswerCarriesRemaining(errors: boolean): (context: KitContext) => Promise<string> {
  return async (context) => {
    const answers = context.client.exchanges.filter((exchange) => isSuccess(exchange.status) !== errors);
    if (answers.length === 0) throw new CheckSkipped(`no ${errors ? 'error' : 'successful'} answer during the run`);
    const findings = new Findings();
    for (const exchange of answers) {
      const value = exchange.headers['x-ratelimit-remaining'];
      findings.expect(value !== undefined && value.trim() !== '', 'an X-RateLimit-Remaining header', `${exchange.status} without it`, exchange);
    }
    findings.done();
    return `${answers.length} answers`;
  };
}

export const limitProbes: ProbeSet = {
  probes: {},
  final: {
    'limits.remaining-header': everyAnswerCarriesRemaining(false),
    'limits.remaining-header-errors': everyAnswerCarriesRemaining(true),
  },
};
