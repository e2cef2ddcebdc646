import { type CreatedReport, type KitContext, ReportUnfinished } from '../context.js';
import { searchList, unreadList } from '../list-search.js';
import { sendWithKey, field } from '../requests.js';
import type { Exchange } from '../http.js';
import { CheckFailure, Findings, isSuccess, requestLine, shown, shownValue } from '../outcome.js';
import type { ProbeSet } from './types.js';

const memo = new WeakMap<KitContext, Promise<CreatedReport & { deleted: Exchange }>>();

/** A report made for deletion and deleted (shared by reports.delete and reports.delete-permanent). */
function deletedReport(context: KitContext): Promise<CreatedReport & { deleted: Exchange }> {
  let promise = memo.get(context);
  if (!promise) {
    promise = (async () => {
      const report = await context.setup.createReport('reports.delete');
      const deleted = await sendWithKey(context, 'DELETE', `/v1/reports/${report.id}`, { role: 'api', purpose: 'reports.delete' });
      if (isSuccess(deleted.status)) context.setup.deleted.add(report.id);
      return { ...report, deleted };
    })();
    memo.set(context, promise);
  }
  return promise;
}

/**
 * Whether an answer still gives the report: a success naming it with report fields. (What a read
 * of a deleted report answers is not shown; a tombstone such as {id, deleted: true} is no report.)
 */
export function stillThere(exchange: Exchange, id: string): boolean {
  if (!isSuccess(exchange.status)) return false;
  const body = exchange.json;
  if (typeof body !== 'object' || body === null) return false;
  const record = body as Record<string, unknown>;
  return record.id === id && ['applicant_id', 'destination', 'status', 'risk_score'].some((name) => record[name] !== undefined);
}

function breakdown(exchange: Exchange): Record<string, unknown> {
  const criteria = field(exchange, 'criteria');
  const sorted = Array.isArray(criteria)
    ? (criteria as Array<Record<string, unknown> | null>)
        .map((item) => ({ key: item?.key, score: item?.score, weight: item?.weight }))
        .sort((a, b) => String(a.key).localeCompare(String(b.key)))
    : criteria;
  return {
    risk_score: field(exchange, 'risk_score'),
    score_band: field(exchange, 'score_band'),
    criteria: sorted,
    recommendations: field(exchange, 'recommendations'),
  };
}

export const reportProbes: ProbeSet = {
  probes: {
    'reports.completes': async (context) => {
      try {
        const report = await context.setup.completedReport();
        return `${report.id} completed`;
      } catch (error) {
        if (error instanceof ReportUnfinished)
          throw new CheckFailure([{ expected: 'the report completed', got: error.message, request: 'GET /v1/reports/:id, polled' }]);
        throw error;
      }
    },

    'reports.criteria-weights': async (context) => {
      const { finished } = await context.setup.completedReport();
      const findings = new Findings();
      const criteria = field(finished, 'criteria');
      if (findings.expect(Array.isArray(criteria) && criteria.length > 0, 'criteria as a non-empty array', shownValue(criteria), finished)) {
        for (const [index, criterion] of (criteria as unknown[]).entries()) {
          const weight = (criterion as { weight?: unknown })?.weight;
          findings.expect(
            typeof weight === 'number' && weight >= 0 && weight <= 1,
            `criteria[${index}].weight as a fraction of 1 (0 to 1)`,
            shownValue(weight),
            finished,
          );
        }
      }
      findings.done();
    },

    'reports.list': async (context) => {
      const report = await context.setup.firstReport();
      const search = await searchList(context, report, 'api', 'reports.list');
      const findings = new Findings();
      if (findings.expect(isSuccess(search.first.status), 'a 2xx answer', shown(search.first), search.first)) {
        if (search.state === 'unknown') unreadList(search, `the kit's report ${report.id} is not among the reports read, and the workspace's`);
        findings.expect(
          search.state === 'found',
          `the list to hold the kit's report ${report.id}`,
          `${search.seen} reports without it (${search.paging})`,
          search.first,
        );
      }
      findings.done();
      return `${report.id} found ${search.paging}`;
    },

    'reports.delete': async (context) => {
      const { deleted } = await deletedReport(context);
      const findings = new Findings();
      findings.expect(isSuccess(deleted.status), 'a 2xx answer', shown(deleted), deleted);
      findings.done();
    },

    'reports.delete-permanent': async (context) => {
      const report = await deletedReport(context);
      const { id, deleted } = report;
      const findings = new Findings();
      if (!findings.expect(isSuccess(deleted.status), 'the DELETE to succeed first', shown(deleted), deleted)) return findings.done();
      const read = await sendWithKey(context, 'GET', `/v1/reports/${id}`, { role: 'api', purpose: 'reports.delete-permanent' });
      findings.expect(!stillThere(read, id), 'the report gone: an error answer (or one without the report)', shown(read), read);
      const search = await searchList(context, report, 'api', 'reports.delete-permanent');
      findings.expect(search.state !== 'found', `the list without ${id}`, `the deleted report in the list (${search.paging})`, search.first);
      // A deletion that an analysis finishing later undoes is not permanent: read it once more after one has had time to finish.
      await context.setup.twinReport().catch(() => undefined);
      const later = await sendWithKey(context, 'GET', `/v1/reports/${id}`, { role: 'api', purpose: 'reports.delete-permanent' });
      findings.expect(!stillThere(later, id), 'the report still gone later in the run', shown(later), later);
      findings.done();
      // Gone from the pages read is no evidence that it is gone from the rest.
      if (search.state === 'unknown') unreadList(search, `${id} is gone from its reads, but the workspace's`);
      return `${id} gone from its reads and from the list (${search.paging})`;
    },

    'determinism.test-key': async (context) => {
      const one = await context.setup.completedReport();
      const two = await context.setup.twinReport();
      const findings = new Findings();
      const a = breakdown(one.finished);
      const b = breakdown(two.finished);
      for (const name of Object.keys(a)) {
        const same = JSON.stringify(a[name]) === JSON.stringify(b[name]);
        if (!same)
          findings.add({
            expected: `the same ${name} for ${one.id} and ${two.id} (same input, svc_test_ key)`,
            got: `${shownValue(a[name])} and ${shownValue(b[name])}`,
            request: requestLine(two.finished),
          });
      }
      findings.done();
      return `${one.id} and ${two.id} agree`;
    },

    'keys.id-prefix': async (context) => {
      const key = await context.setup.revocationKey();
      if (!key.id.startsWith('key_')) {
        throw new CheckFailure([
          {
            expected: 'a key id with the prefix key_',
            got: JSON.stringify(key.id),
            request: key.created ? requestLine(key.created) : 'the id given with --revocable-key-id',
          },
        ]);
      }
      return key.id;
    },
  },
};
