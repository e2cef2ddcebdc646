/**
 * generated.no-server-error: no generated request gets a 5xx. Its own requests go to every stated
 * operation with inputs from anywhere; once every generated check is done, it judges the answers
 * to all of their requests.
 */
import type { KitContext } from '../context.js';
import { reportBody } from '../fixtures.js';
import { CheckSkipped, isSuccess, ReplayableFailure } from '../outcome.js';
import { idOf } from '../requests.js';
import { fuzzRequests } from './arbitraries.js';
import { checkProperty } from './property.js';

const ID = 'generated.no-server-error';

async function sendFuzz(context: KitContext): Promise<string> {
  const generated = context.generated!;
  const runs = Math.floor(generated.budget(ID).allowance / 2);
  if (runs < 1) throw new CheckSkipped(`no room for generated requests: ${generated.why}; give --generated-requests to send some`);
  const applicant = await context.setup.applicant('generated');
  const run = await checkProperty({
    context,
    id: ID,
    arbitrary: fuzzRequests(reportBody(context.fixtures, applicant.id)),
    runs,
    trial: async (request, trial) => {
      const answer = await trial.send(
        {
          method: request.method,
          path: request.path,
          credential: { role: 'api' },
          headers: request.contentType ? { 'content-type': request.contentType } : {},
          body: request.body,
        },
        request.mayCreate ? 2 : 1,
      );
      const id = request.mayCreate && isSuccess(answer.status) ? idOf(answer) : undefined;
      if (id) context.setup.reports.add(id);
      trial.expect(answer.status < 500, 'an answer that is no 5xx (a 2xx, or a 4xx for what it does not take)', `${answer.status}`);
    },
  });
  return `${run.tried} requests of its own to every stated operation, inputs from anywhere (seed ${run.seed})`;
}

export const robustnessProbes = {
  probes: {
    /** Its own requests, while the other generated checks send theirs. */
    [ID]: async (context: KitContext) => {
      const generated = context.generated!;
      generated.robustness = await sendFuzz(context).then(
        (note) => ({ note }),
        (error: unknown) => ({ error }),
      );
    },
  },
  final: {
    /** Every generated request's answer, once all were sent. */
    [ID]: async (context: KitContext) => {
      const generated = context.generated!;
      const own = generated.robustness;
      const ownFailure = own && 'error' in own && own.error instanceof ReplayableFailure ? own.error : undefined;
      const others = generated.serverErrors.filter((error) => error.check !== ID);
      const findings = [
        ...(ownFailure?.findings ?? []),
        ...others.map((error) => ({ expected: `no 5xx to a request of ${error.check}`, got: error.got, request: error.step })),
      ];
      if (findings.length > 0) {
        const shortest = others.map((error) => error.step).toSorted((a, b) => a.length - b.length)[0];
        throw new ReplayableFailure(findings, generated.seed, ownFailure?.minimalCase ?? [shortest!]);
      }
      if (own && 'error' in own) throw own.error;
      const sent = context.client.exchanges.filter((exchange) => exchange.purpose.startsWith('generated.')).length;
      return `${sent} generated requests, none answered 5xx; ${own && 'note' in own ? own.note : 'none of its own'}`;
    },
  },
};
