import { randomBytes } from 'node:crypto';
import type { KitContext } from '../context.js';
import { call } from '../requests.js';
import type { Exchange } from '../http.js';
import { CheckSkipped, Findings, isSuccess, shown } from '../outcome.js';
import { plainHttpAnswer } from './plain-http.js';
import type { ProbeSet } from './types.js';

function expectRemaining(findings: Findings, answers: readonly Exchange[]): void {
  for (const exchange of answers) {
    const value = exchange.headers['x-ratelimit-remaining'];
    findings.expect(value !== undefined && value.trim() !== '', 'an X-RateLimit-Remaining header', `${exchange.status} without it`, exchange);
  }
}

/**
 * Error answers the run would not otherwise see, provoked so that "every response" (part 8) is
 * checked where an implementation is most likely to forget it: answers its router or its front
 * gives before the API code runs.
 */
async function provokeErrors(context: KitContext): Promise<void> {
  const purpose = 'limits.remaining-header-errors';
  const unknown = randomBytes(8).toString('hex');
  await call(context, 'GET', `/v1/reports/rep_svckit${unknown}`, { role: 'api', purpose });
  await call(context, 'GET', `/v1/svc-kit-no-such-path-${unknown}`, { role: 'api', purpose });
  await call(context, 'PATCH', '/v1/reports', { role: 'api', purpose, json: {} });
}

export const limitProbes: ProbeSet = {
  probes: {},
  final: {
    'limits.remaining-header': async (context) => {
      const answers = context.client.exchanges.filter((exchange) => isSuccess(exchange.status));
      if (answers.length === 0) throw new CheckSkipped('no successful answer during the run');
      const findings = new Findings();
      expectRemaining(findings, answers);
      findings.done();
      return `${answers.length} answers`;
    },

    'limits.remaining-header-errors': async (context) => {
      await provokeErrors(context);
      const findings = new Findings();
      const answers = context.client.exchanges.filter((exchange) => !isSuccess(exchange.status));
      expectRemaining(findings, answers);
      const plain = await plainHttpAnswer(context);
      const plainAnswered = !('refused' in plain);
      if (plainAnswered)
        findings.expect(plain.headers['x-ratelimit-remaining'] !== undefined, 'an X-RateLimit-Remaining header on the answer to plain HTTP', shown(plain), {
          method: 'GET',
          path: plain.url,
          role: 'none',
        });
      findings.done();
      return `${answers.length} error answers${plainAnswered ? ' and the answer to plain HTTP' : ''}`;
    },
  },
};
