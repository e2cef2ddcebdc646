import { parseSignatureHeader, signatureHeadersOf } from '../../webhooks/signature.js';
import type { CheckId } from '../catalogue.js';
import { DEFAULT_FAILING_INPUT, type KitContext, SUPPLY } from '../context.js';
import { reportEnd } from '../report-end.js';
import { CheckSkipped, type Finding, Findings, isSuccess, requestLine, SetupError, shown, shownValue, UTC_TIMESTAMP } from '../outcome.js';
import { type Answer, type Delivery, eventOf, mentions, namesAnother, type WebhookReceiver } from '../receiver.js';
import { SIGNATURE_HEADER_NAMES } from '../signature-readings.js';
import type { Probe, ProbeSet } from './types.js';
import { isJsonObject } from '../../core/json-object.js';

function receiverOf(context: KitContext): WebhookReceiver {
  if (!context.receiver) throw new CheckSkipped('needs --webhook-port');
  return context.receiver;
}

function header(delivery: Delivery, name: string): string | undefined {
  const value = delivery.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

export function deliveryLine(delivery: Delivery): string {
  const event = eventOf(delivery);
  return `delivery #${delivery.seq + 1} (${event.type ?? 'no type'} ${event.id ?? 'without id'}) to the kit's receiver`;
}

/** What `events.signature-form` finds of a delivery: no signature header, or one of either name not of part 6's form (a receiver may read either). */
export function signatureFormFindings(delivery: Delivery): Finding[] {
  const headers = signatureHeadersOf(delivery.headers);
  if (headers.length === 0)
    return [
      {
        expected: 'Service-Signature (or X-Service-Signature): t=<unix_timestamp>,v1=<signature>',
        got: 'no signature header',
        request: deliveryLine(delivery),
      },
    ];
  return headers.flatMap(({ name, value }) => {
    const parsed = parseSignatureHeader(value);
    const ok = !('reason' in parsed) && /^t=\d+,/.test(value.replace(/\s/g, '')) && parsed.signatures.every((signature) => signature !== '');
    const why = 'reason' in parsed ? ` (${parsed.detail})` : '';
    return ok
      ? []
      : [{ expected: `${SIGNATURE_HEADER_NAMES[name]}: t=<unix_timestamp>,v1=<signature>`, got: `${value}${why}`, request: deliveryLine(delivery) }];
  });
}

function everyDelivery(context: KitContext): Delivery[] {
  const receiver = receiverOf(context);
  if (receiver.deliveries.length === 0) {
    throw receiver.absence({ expected: 'webhook deliveries to the kit during the run', got: 'none', request: "the kit's webhook receiver" });
  }
  return receiver.deliveries;
}

/** Canonical JSON: keys sorted, so the same event is recognised whatever the key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isJsonObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** Why a check about a failed report may have no report to judge. */
const NO_FAILING_INPUT = 'and the specification states no input that must fail a report: give one the implementation fails as "failing_report" in --fixtures';

const PROCESSED_GRACE_MS = 3_000;
/** The subscriber's time to answer (part 6). */
const ANSWER_WITHIN_MS = 10_000;

interface Redelivery {
  reportId: string;
  failed: Delivery;
}

/** How each redelivery probe answers the first delivery of its report's report.completed. */
const FIRST_ANSWERS = {
  'events.redelivery': () => 503,
  'events.redelivery-4xx': () => 400,
  'events.redelivery-timeout': (context) => ({ status: 200, holdMs: context.timeouts.holdMs }),
} satisfies Partial<Record<CheckId, (context: KitContext) => Answer>>;

type RedeliveryCheck = keyof typeof FIRST_ANSWERS;

const armed = new WeakMap<KitContext, Map<string, Promise<Redelivery>>>();

/**
 * The first half of a redelivery probe: the kit answers the report.completed of a report made for
 * the purpose badly (that event names its report, so other traffic cannot be mistaken for it).
 * It starts with the other checks, so its wait runs beside them.
 */
function armRedelivery(context: KitContext, check: RedeliveryCheck): Promise<Redelivery> {
  let byCheck = armed.get(context);
  if (!byCheck) armed.set(context, (byCheck = new Map<string, Promise<Redelivery>>()));
  let promise = byCheck.get(check);
  if (!promise) {
    promise = (async () => {
      const receiver = receiverOf(context);
      const targets = new Set<string>();
      let failed: Delivery | undefined;
      const answer = FIRST_ANSWERS[check](context);
      const disarm = receiver.answerWith((delivery) => {
        if (failed || eventOf(delivery).type !== 'report.completed' || ![...targets].some((id) => mentions(delivery.json, id))) return undefined;
        failed = delivery;
        return answer;
      });
      try {
        for (let attempt = 0; attempt < 2 && !failed; attempt++) {
          const report = await context.setup.createReport(check);
          targets.add(report.id);
          const deadline = context.timeouts.completionMs + context.timeouts.eventMs;
          const arrived = await receiver.waitForEvent(
            (delivery) => eventOf(delivery).type === 'report.completed' && mentions(delivery.json, report.id),
            deadline,
            report.deliveriesBefore,
          );
          // A report.completed that came before the kit knew the report's id was answered 200: one more report.
          if (failed) return { reportId: report.id, failed };
          if (!arrived)
            throw new SetupError(
              `no report.completed naming ${report.id} arrived within ${deadline / 1000} s, so none could be answered badly (see events.report-completed)`,
            );
        }
        throw new CheckSkipped("each report.completed arrived before the answer to its report's creation, so the kit could not answer it badly");
      } finally {
        disarm();
      }
    })();
    byCheck.set(check, promise);
  }
  return promise;
}

/** The second half: the same event again, with the same id, inside the window after the first delivery. */
function redeliveryProbe(check: RedeliveryCheck, what: string, extraMs = 0): Probe {
  return async (context) => {
    const { failed, reportId } = await armRedelivery(context, check);
    const receiver = receiverOf(context);
    const earliest = context.timeouts.redeliveryEarliestMs;
    const latest = context.timeouts.redeliveryLatestMs + extraMs;
    const failedEvent = eventOf(failed);
    const again = (delivery: Delivery) =>
      failedEvent.id
        ? eventOf(delivery).id === failedEvent.id || (eventOf(delivery).type === 'report.completed' && mentions(delivery.json, reportId))
        : delivery.text === failed.text;
    const next = await receiver.waitForEvent(again, Math.max(0, failed.at + latest - Date.now()), failed.seq + 1);
    const request = `the report.completed of ${reportId}, ${what}`;
    const window = `${earliest / 1000}-${latest / 1000} s`;
    if (!next)
      throw receiver.absence({
        expected: `the event delivered again 30 s after the first attempt (window ${window})`,
        got: `no second delivery within ${latest / 1000} s`,
        request,
      });
    const after = next.at - failed.at;
    const findings = new Findings();
    if (after < earliest || after > latest)
      findings.add({ expected: `the second delivery 30 s after the first (window ${window})`, got: `${(after / 1000).toFixed(1)} s`, request });
    if (failedEvent.id && eventOf(next).id !== failedEvent.id)
      findings.add({ expected: `the same event id ${failedEvent.id}`, got: shownValue(eventOf(next).id), request });
    findings.done();
    return `delivered again after ${(after / 1000).toFixed(1)} s`;
  };
}

export const eventProbes: ProbeSet = {
  probes: {
    'events.redelivery': redeliveryProbe('events.redelivery', 'answered 503 by the kit'),
    'events.redelivery-4xx': redeliveryProbe('events.redelivery-4xx', 'answered 400 by the kit'),
    // The retry may count its delay from the timeout, 10 s after the attempt began.
    'events.redelivery-timeout': redeliveryProbe('events.redelivery-timeout', 'whose answer the kit held past 10 s', ANSWER_WITHIN_MS),

    'events.report-completed-fields': async (context) => {
      const receiver = receiverOf(context);
      const report = await context.setup.completedReport();
      const delivery = await receiver.waitForEvent(
        (item) => eventOf(item).type === 'report.completed' && mentions(item.json, report.id),
        context.timeouts.eventMs,
        report.deliveriesBefore,
      );
      if (!delivery)
        throw receiver.absence({
          expected: `a report.completed event naming ${report.id}`,
          got: `none within ${context.timeouts.eventMs / 1000} s of its completion`,
          request: 'the kit’s webhook receiver',
        });
      const findings = new Findings();
      const where = deliveryLine(delivery);
      const add = (ok: boolean, expected: string, got: unknown) => ok || findings.add({ expected, got: shownValue(got), request: where });
      const body = delivery.json as Record<string, unknown>;
      add(
        typeof body.created_at === 'string' && UTC_TIMESTAMP.test(body.created_at),
        'created_at as an ISO 8601 UTC timestamp in the completed payload',
        body.created_at,
      );
      const data = eventOf(delivery).data;
      if (!isJsonObject(data)) {
        add(false, 'data as an object', data);
      } else if ('id' in data) {
        add(data.id === report.id, `data.id ${report.id}`, data.id);
        add(Number.isInteger(data.risk_score), 'data.risk_score as an integer', data.risk_score);
        add(typeof data.risk_band === 'string', 'data.risk_band as a string', data.risk_band);
        // Part 2: completed_at "may appear"; when it does, it is a UTC timestamp.
        if (data.completed_at !== undefined)
          add(
            typeof data.completed_at === 'string' && UTC_TIMESTAMP.test(data.completed_at),
            'data.completed_at, when present, as an ISO 8601 UTC timestamp',
            data.completed_at,
          );
      } else {
        add(data.report_id === report.id, `data.id (or data.report_id, in the shorter variant) ${report.id}`, data.report_id);
        add(Number.isInteger(data.risk_score), 'data.risk_score as an integer', data.risk_score);
      }
      findings.done();
      return `${eventOf(delivery).id}: ${'id' in (data as object) ? 'the full variant' : 'the shorter variant'}`;
    },

    'events.document-processed-fields': async (context) => {
      const receiver = receiverOf(context);
      const document = await context.setup.document();
      const succeeded = ['document.processed', 'document.parsed'];
      const isProcessed = (item: Delivery) => eventOf(item).type === 'document.processed' && mentions(item.json, document.id);
      const first = await receiver.waitForEvent(
        (item) => succeeded.includes(eventOf(item).type ?? '') && mentions(item.json, document.id),
        context.timeouts.eventMs,
        document.deliveriesBefore,
      );
      // An implementation may send both: document.processed can come a moment after document.parsed.
      const processed = first && (await receiver.waitForEvent(isProcessed, PROCESSED_GRACE_MS, document.deliveriesBefore));
      if (!processed) {
        const parsed = receiver.deliveries
          .slice(document.deliveriesBefore)
          .some((item) => eventOf(item).type === 'document.parsed' && !namesAnother(item.json, document.id));
        if (parsed) throw new CheckSkipped('the implementation announces documents with document.parsed, whose payload is not shown');
        throw receiver.absence({
          expected: `document.processed (or document.parsed) for ${document.id}`,
          got: `none within ${context.timeouts.eventMs / 1000} s`,
          request: 'POST /v1/documents',
        });
      }
      const findings = new Findings();
      const data = eventOf(processed).data;
      const where = deliveryLine(processed);
      const add = (ok: boolean, expected: string, got: unknown) => ok || findings.add({ expected, got: shownValue(got), request: where });
      if (!isJsonObject(data)) add(false, 'data as an object', data);
      else {
        add(data.id === document.id, `data.id ${document.id}`, data.id);
        add(typeof data.type === 'string', 'data.type as a string', data.type);
        add(data.status === 'analysed', 'data.status analysed', data.status);
        add(Array.isArray(data.red_flags), 'data.red_flags as an array', data.red_flags);
      }
      findings.done();
    },

    'events.report-failed': async (context) => {
      const receiver = receiverOf(context);
      const provoked = await context.setup.failingReport();
      if (!provoked) throw new CheckSkipped(`${DEFAULT_FAILING_INPUT} could not be made, ${NO_FAILING_INPUT}`);
      const end = reportEnd(provoked.read, context.timeouts.completionMs);
      if (end.outcome !== 'failed') {
        const said = `${provoked.input} (${provoked.id}) ${end.words}`;
        if (provoked.given) throw new SetupError(`${said}, not in a failed outcome`, SUPPLY.failingReport);
        throw new CheckSkipped(`${said}, ${NO_FAILING_INPUT}`);
      }
      const event = await receiver.waitForEvent(
        (delivery) => eventOf(delivery).type === 'report.failed' && mentions(delivery.json, provoked.id),
        context.timeouts.eventMs,
        provoked.deliveriesBefore,
      );
      if (!event) {
        throw receiver.absence({
          expected: `report.failed for ${provoked.id}, which ${end.words}`,
          got: `none within ${context.timeouts.eventMs / 1000} s`,
          request: `${provoked.input}, read with GET /v1/reports/${provoked.id}`,
        });
      }
      return `report.failed for ${provoked.id} (${provoked.input}), which ${end.words}`;
    },

    'events.report-failed-fields': async (context) => {
      const receiver = receiverOf(context);
      const provoked = await context.setup.failingReport();
      const end = provoked && reportEnd(provoked.read, context.timeouts.completionMs);
      if (provoked && end?.outcome === 'failed') {
        await receiver.waitForEvent(
          (delivery) => eventOf(delivery).type === 'report.failed' && mentions(delivery.json, provoked.id),
          context.timeouts.eventMs,
          provoked.deliveriesBefore,
        );
      }
      const failed = receiver.deliveries.filter((delivery) => eventOf(delivery).type === 'report.failed');
      if (failed.length === 0 && !receiver.reached)
        throw receiver.absence({ expected: 'report.failed events to judge', got: 'none', request: "the kit's webhook receiver" });
      if (failed.length === 0) {
        if (provoked && end?.outcome === 'failed')
          throw new CheckSkipped(
            `no report.failed arrived: none for ${provoked.input} (${provoked.id}), which ${end.words} (events.report-failed judges that)`,
          );
        throw new CheckSkipped(
          `no report.failed arrived: ${provoked && end ? `${provoked.input} (${provoked.id}) ${end.words}` : `${DEFAULT_FAILING_INPUT} could not be made`}, ${NO_FAILING_INPUT}`,
        );
      }
      const findings = new Findings();
      for (const delivery of failed) {
        const data = eventOf(delivery).data;
        const error = isJsonObject(data) && isJsonObject(data.error) ? data.error : undefined;
        const add = (ok: boolean, expected: string, got: unknown) => ok || findings.add({ expected, got: shownValue(got), request: deliveryLine(delivery) });
        add(isJsonObject(data) && typeof data.id === 'string' && data.id !== '', 'data.id, the report id', isJsonObject(data) ? data.id : data);
        if (add(error !== undefined, 'data.error as an object', isJsonObject(data) ? data.error : data)) {
          add(typeof error!.code === 'string', 'data.error.code as a string', error!.code);
          add(typeof error!.message === 'string', 'data.error.message as a string', error!.message);
        }
      }
      findings.done();
      return `${failed.length} report.failed`;
    },

    'documents.rejected': async (context) => {
      const receiver = receiverOf(context);
      // A refusal judges the file only where the kit's passport, in the same shape, is taken.
      await context.setup.document();
      const upload = await context.setup.rejectedUpload();
      if (upload.uploaded.status >= 400 && upload.uploaded.status < 500) return `refused at upload: ${upload.uploaded.status}`;
      const findings = new Findings();
      if (
        !findings.expect(
          isSuccess(upload.uploaded.status),
          'the upload refused (4xx), or taken (2xx) and then rejected',
          shown(upload.uploaded),
          upload.uploaded,
        )
      )
        return findings.done();
      // The payload of document.rejected is not shown: any value equal to the document's id names it. Without an id
      // in the upload's answer (not shown either), the first document.rejected after the upload is taken for it.
      const about = (item: Delivery) => (upload.id ? mentions(item.json, upload.id) : eventOf(item).type === 'document.rejected');
      const outcome = await receiver.waitForEvent(
        (item) => ['document.rejected', 'document.processed', 'document.parsed'].includes(eventOf(item).type ?? '') && about(item),
        context.timeouts.eventMs,
        upload.deliveriesBefore,
      );
      const expected = `document.rejected for ${upload.id || 'the upload'} (a Windows executable sent as a passport)`;
      if (!outcome)
        throw receiver.absence({ expected, got: `no event for it within ${context.timeouts.eventMs / 1000} s`, request: requestLine(upload.uploaded) });
      findings.expect(eventOf(outcome).type === 'document.rejected', expected, `${eventOf(outcome).type} ${outcome.text.slice(0, 120)}`, upload.uploaded);
      findings.done();
    },
  },

  final: {
    'events.envelope': async (context) => {
      const findings = new Findings();
      const deliveries = everyDelivery(context);
      for (const delivery of deliveries) {
        const where = deliveryLine(delivery);
        const event = eventOf(delivery);
        const add = (ok: boolean, expected: string, got: unknown) =>
          ok || findings.add({ expected, got: typeof got === 'string' ? got : shownValue(got), request: where });
        add(delivery.method === 'POST', 'method POST', delivery.method);
        add(
          /^application\/json\b/i.test(header(delivery, 'content-type') ?? ''),
          'Content-Type: application/json',
          header(delivery, 'content-type') ?? 'no Content-Type',
        );
        if (!add(isJsonObject(delivery.json), 'a JSON object', delivery.text.slice(0, 120))) continue;
        add(typeof event.id === 'string' && /^evt_./.test(event.id), 'an id with the prefix evt_', event.id);
        add(typeof event.type === 'string' && event.type !== '', 'a type', event.type);
        add(isJsonObject(event.data), 'data as an object', event.data);
      }
      findings.done();
      return `${deliveries.length} deliveries`;
    },

    'events.unique-ids': async (context) => {
      const findings = new Findings();
      const seen = new Map<string, Delivery>();
      // The event is its type and data: a delivery may carry more (an attempt counter, a delivery time).
      const eventBody = (delivery: Delivery) => canonical({ type: eventOf(delivery).type, data: eventOf(delivery).data });
      for (const delivery of everyDelivery(context)) {
        const id = eventOf(delivery).id;
        if (id === undefined) continue;
        const earlier = seen.get(id);
        if (!earlier) seen.set(id, delivery);
        else if (eventBody(earlier) !== eventBody(delivery)) {
          findings.add({
            expected: `one event per id: the deliveries of ${id} to carry the same type and data`,
            got: `${eventOf(earlier).type} and ${eventOf(delivery).type} with different contents`,
            request: `${deliveryLine(earlier)} and ${deliveryLine(delivery)}`,
          });
        }
      }
      if (seen.size === 0) findings.add({ expected: 'events with ids', got: 'no delivery with an id', request: "the kit's webhook receiver" });
      findings.done();
      return `${seen.size} distinct events`;
    },

    'events.service-event-header': async (context) => {
      const findings = new Findings();
      for (const delivery of everyDelivery(context)) {
        const type = eventOf(delivery).type;
        const value = header(delivery, 'service-event');
        if (value === undefined || value !== type) {
          findings.add({
            expected: `Service-Event: ${type ?? "(the body's type)"}`,
            got: value === undefined ? 'no Service-Event header' : `Service-Event: ${value}`,
            request: deliveryLine(delivery),
          });
        }
      }
      findings.done();
    },

    'events.signature-form': async (context) => {
      const findings = new Findings();
      for (const delivery of everyDelivery(context)) for (const finding of signatureFormFindings(delivery)) findings.add(finding);
      findings.done();
    },
  },
};
