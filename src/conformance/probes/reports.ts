import { call, field, idOf, type KitContext, listItems } from '../context.js';
import type { Exchange } from '../http.js';
import { Findings, isSuccess, requestLine, shown, shownValue } from '../outcome.js';
import type { ProbeSet } from './types.js';

const memo = new WeakMap<KitContext, Promise<{ id: string; deleted: Exchange }>>();

/** A report made for deletion and deleted (shared by reports.delete and reports.delete-permanent). */
function deletedReport(context: KitContext): Promise<{ id: string; deleted: Exchange }> {
  let promise = memo.get(context);
  if (!promise) {
    promise = (async () => {
      const report = await context.fixtures.createReport('reports.delete');
      const deleted = await call(context, 'DELETE', `/v1/reports/${report.id}`, { role: 'api', purpose: 'reports.delete' });
      if (isSuccess(deleted.status)) context.fixtures.deleted.add(report.id);
      return { id: report.id, deleted };
    })();
    memo.set(context, promise);
  }
  return promise;
}

/**
 * Whether the list holds the report: on its first page, or, for a long list, on the pages a
 * `starting_after` cursor gives (paging is not shown; this is its most common form).
 */
export async function listHolds(context: KitContext, id: string, role: 'api' | 'readOnly' | 'other', purpose: string): Promise<{ found: boolean; first: Exchange; items: unknown[] | undefined }> {
  const first = await call(context, 'GET', '/v1/reports', { role, purpose });
  let items = listItems(first);
  const holds = (list: unknown[] | undefined) => list?.some((item) => typeof item === 'object' && item !== null && (item as { id?: unknown }).id === id) ?? false;
  if (!isSuccess(first.status) || holds(items)) return { found: holds(items), first, items };
  for (let page = 0; page < 5 && items && items.length >= 10; page++) {
    const last = items.at(-1) as { id?: unknown } | undefined;
    if (typeof last?.id !== 'string') break;
    const next = await call(context, 'GET', `/v1/reports?starting_after=${encodeURIComponent(last.id)}`, { role, purpose });
    if (!isSuccess(next.status)) break;
    items = listItems(next);
    if (holds(items)) return { found: true, first, items: listItems(first) };
  }
  return { found: false, first, items: listItems(first) };
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
    ? [...criteria].map((item) => ({ key: item?.key, score: item?.score, weight: item?.weight })).sort((a, b) => String(a.key).localeCompare(String(b.key)))
    : criteria;
  return { risk_score: field(exchange, 'risk_score'), score_band: field(exchange, 'score_band'), criteria: sorted, recommendations: field(exchange, 'recommendations') };
}

export const reportProbes: ProbeSet = {
  probes: {
    'reports.completes': async (context) => {
      const report = await context.fixtures.completedReport();
      return `${report.id} completed`;
    },

    'reports.criteria-weights': async (context) => {
      const { finished } = await context.fixtures.completedReport();
      const findings = new Findings();
      const criteria = field(finished, 'criteria');
      if (findings.expect(Array.isArray(criteria) && criteria.length > 0, 'criteria as a non-empty array', shownValue(criteria), finished)) {
        for (const [index, criterion] of (criteria as unknown[]).entries()) {
          const weight = (criterion as { weight?: unknown })?.weight;
          findings.expect(typeof weight === 'number' && weight >= 0 && weight <= 1, `criteria[${index}].weight as a fraction of 1 (0 to 1)`, shownValue(weight), finished);
        }
      }
      findings.done();
    },

    'reports.list': async (context) => {
      const report = await context.fixtures.firstReport();
      const { found, first, items } = await listHolds(context, report.id, 'api', 'reports.list');
      const findings = new Findings();
      if (findings.expect(isSuccess(first.status), 'a 2xx answer', shown(first), first) && findings.expect(items !== undefined, 'a list: an array, bare or as the one array of an object', shown(first), first)) {
        findings.expect(found, `the list to hold the kit's report ${report.id}`, `${items!.length} reports without it`, first);
      }
      findings.done();
    },

    'reports.delete': async (context) => {
      const { deleted } = await deletedReport(context);
      const findings = new Findings();
      findings.expect(isSuccess(deleted.status), 'a 2xx answer', shown(deleted), deleted);
      findings.done();
    },

    'reports.delete-permanent': async (context) => {
      const { id, deleted } = await deletedReport(context);
      const findings = new Findings();
      if (!findings.expect(isSuccess(deleted.status), 'the DELETE to succeed first', shown(deleted), deleted)) return findings.done();
      const read = await call(context, 'GET', `/v1/reports/${id}`, { role: 'api', purpose: 'reports.delete-permanent' });
      findings.expect(!stillThere(read, id), 'the report gone: an error answer (or one without the report)', shown(read), read);
      const { found, first } = await listHolds(context, id, 'api', 'reports.delete-permanent');
      findings.expect(!found, `the list without ${id}`, 'the deleted report in the list', first);
      // A deletion that an analysis finishing later undoes is not permanent: read it once more after one has had time to finish.
      await context.fixtures.twinReport().catch(() => undefined);
      const later = await call(context, 'GET', `/v1/reports/${id}`, { role: 'api', purpose: 'reports.delete-permanent' });
      findings.expect(!stillThere(later, id), 'the report still gone later in the run', shown(later), later);
      findings.done();
    },

    'determinism.test-key': async (context) => {
      const one = await context.fixtures.completedReport();
      const two = await context.fixtures.twinReport();
      const findings = new Findings();
      const a = breakdown(one.finished);
      const b = breakdown(two.finished);
      for (const name of Object.keys(a)) {
        const same = JSON.stringify(a[name]) === JSON.stringify(b[name]);
        if (!same) findings.add({ expected: `the same ${name} for ${one.id} and ${two.id} (same input, svc_test_ key)`, got: `${shownValue(a[name])} and ${shownValue(b[name])}`, request: requestLine(two.finished) });
      }
      findings.done();
      return `${one.id} and ${two.id} agree`;
    },

    'keys.id-prefix': async (context) => {
      const key = await context.fixtures.createdKey('revocation');
      const findings = new Findings();
      findings.expect(key.id.startsWith('key_'), 'a key id with the prefix key_', JSON.stringify(idOf(key.created)), key.created);
      findings.done();
    },
  },
};
