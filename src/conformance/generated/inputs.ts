/**
 * generated.inputs-valid and generated.inputs-invalid: reports from generated inputs, valid and
 * not, for applicants of their own (a refused input must make nothing, and nothing else is ever
 * made for the refused inputs' applicant, so that the list shows what one made).
 */
import fc from 'fast-check';
import { listItems } from '../../api/list-answer.js';
import { isJsonObject, type JsonObject } from '../../core/json-object.js';
import { STATED } from '../../spec/stated.js';
import { type KitContext, SUPPLY } from '../context.js';
import { reportBody } from '../fixtures.js';
import type { Exchange } from '../http.js';
import { searchListFor, unreadList } from '../list-search.js';
import { CheckSkipped, isSuccess, ReplayableFailure, shown, shownValue, UTC_TIMESTAMP } from '../outcome.js';
import { field, idOf } from '../requests.js';
import { invalidReportKinds, type ReportInput, validReportInputs } from './arbitraries.js';
import { checkProperty, runProperty, type Trial } from './property.js';
import type { GeneratedCheckId } from './plan.js';

/** The requests a report from a valid input costs: its creation, its read, and its deletion at the end of the run. */
const VALID_INPUT_COST = 3;
/** An invalid input costs its request, and a DELETE at the end of the run where it made a report after all. */
const INVALID_INPUT_COST = 2;
/** The pages of the list the kit reads at most to see that the refused inputs made nothing, within the budget. */
const LIST_PAGES = 3;

/** How many inputs the budget affords, at `cost` each after `fixed`; skipped, saying why, when none. */
function affordable(context: KitContext, id: GeneratedCheckId, cost: number, fixed = 0): number {
  const generated = context.generated!;
  const runs = Math.floor((generated.budget(id).allowance - fixed) / cost);
  if (runs < 1)
    throw new CheckSkipped(
      `no room for generated requests: ${generated.why}; give --generated-requests to send some (a report from a generated input costs ${cost + fixed} requests)`,
    );
  return runs;
}

/** A report of the workspace made by one of the kit's inputs: it is deleted at the end of the run. */
function madeReport(context: KitContext, trial: Trial, answer: Exchange): string | undefined {
  const id = idOf(answer);
  if (!isSuccess(answer.status) || !id) return undefined;
  context.setup.reports.add(id);
  trial.annotate(`: ${id}`);
  return id;
}

function postReport(trial: Trial, input: ReportInput, cost: number): Promise<Exchange> {
  return trial.send(
    { method: 'POST', path: '/v1/reports', credential: { role: 'api' }, headers: { 'content-type': input.contentType }, body: input.text },
    cost,
  );
}

/** The stated fields of a report answer that must be those of its input. */
function expectReportOf(trial: Trial, answer: Exchange, input: ReportInput, id: string): void {
  trial.expect(STATED.reportId.test(id), `the report's id ${STATED.reportId.says}`, JSON.stringify(id));
  for (const name of ['applicant_id', 'destination'] as const) {
    if (typeof input.fields[name] !== 'string') continue;
    trial.expect(field(answer, name) === input.fields[name], `${name} ${JSON.stringify(input.fields[name])} as sent`, shownValue(field(answer, name)));
  }
  const createdAt = field(answer, 'created_at');
  trial.expect(typeof createdAt === 'string' && UTC_TIMESTAMP.test(createdAt), 'created_at as an ISO 8601 UTC timestamp', shownValue(createdAt));
}

async function validInput(context: KitContext, core: JsonObject, input: ReportInput, trial: Trial): Promise<void> {
  const created = await postReport(trial, input, 2);
  const id = madeReport(context, trial, created);
  // The destinations an implementation serves are not shown: another one may be refused. The fixtures' report, written otherwise, is the same input.
  const sameAsFixtures = input.fields.destination === core.destination;
  if (!id) {
    const refusedFairly = !sameAsFixtures && created.status >= 400 && created.status < 500;
    trial.expect(
      refusedFairly,
      sameAsFixtures
        ? `${input.what} accepted (2xx with the report): it is the fixtures' report as other JSON text`
        : `${input.what} accepted, or refused with a 4xx`,
      isSuccess(created.status) ? `${created.status} without a report id` : shown(created),
    );
    return;
  }
  expectReportOf(trial, created, input, id);
  const read = await trial.send({ method: 'GET', path: `/v1/reports/${id}`, credential: { role: 'api' } });
  if (trial.expect(isSuccess(read.status) && idOf(read) === id, `${id} readable by its id (2xx with the report)`, shown(read)))
    expectReportOf(trial, read, input, id);
}

/** Whether a page of the list holds a report for one of `applicants`. */
function holdsReportOf(page: unknown, applicants: Set<string>): boolean {
  return (listItems(page) ?? []).some((item) => isJsonObject(item) && typeof item.applicant_id === 'string' && applicants.has(item.applicant_id));
}

/** The time of an answer by the implementation's clock (its Date header, to the second), for where a list newest first passes it. */
function answeredAt(exchange: Exchange | undefined): number {
  const date = exchange?.headers.date;
  return date === undefined ? Number.NaN : Date.parse(date) - 1_000;
}

export const inputProbes = {
  'generated.inputs-valid': async (context: KitContext) => {
    const applicant = await context.setup.applicant('generated');
    const core = reportBody(context.fixtures, applicant.id);
    let refused = 0;
    const run = await checkProperty({
      context,
      id: 'generated.inputs-valid',
      arbitrary: validReportInputs(core),
      runs: affordable(context, 'generated.inputs-valid', VALID_INPUT_COST),
      trial: async (input, trial) => {
        await validInput(context, core, input, trial);
        if (trial.steps.length === 1) refused++;
      },
    });
    return `${run.tried} generated valid inputs (seed ${run.seed}), ${run.tried - refused} made into reports of their input${refused > 0 ? `, ${refused} refused with a 4xx (a destination it does not serve)` : ''}${run.cutShort ? '; the budget cut the last short' : ''}`;
  },

  'generated.inputs-invalid': async (context: KitContext) => {
    const id = 'generated.inputs-invalid';
    const generated = context.generated!;
    const applicant = await context.setup.applicant('generated refused', { body: context.fixtures.applicant, supply: SUPPLY.applicant });
    const core = reportBody(context.fixtures, applicant.id);
    const applicants = new Set([applicant.id]);
    const refusals: Trial[] = [];
    const failed: Trial[] = [];
    // Every kind of breach, each as often as the budget affords (a sample of kinds drawn from the seed where it affords fewer).
    const kinds = invalidReportKinds(core);
    const runs = affordable(context, id, INVALID_INPUT_COST, LIST_PAGES);
    const chosen =
      runs >= kinds.length ? kinds : fc.sample(fc.shuffledSubarray(kinds, { minLength: runs, maxLength: runs }), { seed: generated.seed, numRuns: 1 })[0]!;
    let tried = 0;
    let cutShort = false;
    for (const kind of chosen) {
      const run = await runProperty({
        context,
        id,
        salt: ` ${kind.name}`,
        arbitrary: kind.inputs,
        runs: Math.max(1, Math.floor(runs / kinds.length)),
        trial: async (input, trial) => {
          if (typeof input.fields.applicant_id === 'string') applicants.add(input.fields.applicant_id);
          const answer = await postReport(trial, input, INVALID_INPUT_COST);
          const made = madeReport(context, trial, answer);
          const refused = answer.status >= 400 && answer.status < 500;
          trial.expect(refused, `${input.what}: refused with a 4xx, nothing made`, made ? `${answer.status}: ${made} made of it` : shown(answer));
          if (refused) refusals.push(trial);
        },
      });
      tried += run.tried;
      cutShort ||= run.cutShort;
      if (run.smallest) failed.push(run.smallest);
    }
    if (failed.length > 0)
      throw new ReplayableFailure(
        failed.flatMap((trial) => trial.findings),
        generated.seed,
        failed.map((trial) => trial.steps[0]!),
      );
    // A refusal that made a report all the same shows in the list: one for the applicant no accepted input was ever for.
    const first = context.client.exchanges.find((exchange) => exchange.purpose === 'generated.inputs-invalid');
    const search = await searchListFor(
      context,
      { name: 'the reports of the refused inputs', holds: (page) => holdsReportOf(page, applicants), created: answeredAt(first) },
      'api',
      'generated.inputs-invalid',
    );
    if (search.state === 'found') {
      const found = (listItems(search.first.json) ?? []).find((item) => isJsonObject(item) && applicants.has(String(item.applicant_id)));
      throw new ReplayableFailure(
        [
          {
            expected: `the ${refusals.length} refused inputs to make nothing`,
            got: `a report for ${[...applicants].join(' or ')} in the list${found ? ` (${String((found as JsonObject).id)})` : ''} (${search.paging}), though no input for it was accepted`,
            request: 'GET /v1/reports with the test key',
          },
        ],
        generated.seed,
        refusals.map((trial) => trial.steps[0]!),
      );
    }
    // Absent from the pages read is no evidence that the rest of the list is without them.
    if (search.state === 'unknown') unreadList(search, `the ${refusals.length} refused inputs were each refused with a 4xx, but the workspace's`);
    const sample =
      chosen.length < kinds.length
        ? ` (${chosen.length} of the ${kinds.length} kinds, drawn from the seed: ${generated.why})`
        : ` of all ${kinds.length} kinds`;
    return `${tried} generated inputs that break a stated rule${sample}, seed ${generated.seed}: each refused with a 4xx, and none of them in the list (${search.paging})${cutShort ? '; the budget cut the last short' : ''}`;
  },
};
