import type { DeliveryReport, RefusalReport, TakeoverReport } from '../webhooks/listener.js';
import type { Output } from './io.js';
import { hangingLine } from './table.js';
import { terminalText } from './terminal-text.js';
import type { TimeView } from './time.js';

/** 0.1.0's name of a line, printed beside `event` until 0.3.0 (src/cli/deprecated-json.ts). */
interface DeprecatedKind<Kind extends string> {
  /** Deprecated: the line's name in 0.1.0, until 0.3.0; read `event`. */
  kind: Kind;
}

/** A delivery as `webhooks listen --json` writes it: snake_case like the API, `event` naming the line as every command's JSON lines do. */
export interface DeliveryJson extends DeprecatedKind<DeliveryReport['kind']> {
  event: DeliveryReport['kind'];
  at: string;
  result: DeliveryReport['result'];
  event_id: string | null;
  type: string | null;
  resource_id: string | null;
  reason: NonNullable<DeliveryReport['reason']> | null;
  detail: string | null;
  schema_notes: string[];
  status: number;
  forward: { url: string; status: number | null; error: string | null; duration_ms: number } | null;
}

export function deliveryJson(report: DeliveryReport): DeliveryJson {
  return {
    event: report.kind,
    kind: report.kind,
    at: report.at,
    result: report.result,
    event_id: report.event.id ?? null,
    type: report.event.type ?? null,
    resource_id: report.event.resourceId ?? null,
    reason: report.reason ?? null,
    detail: report.detail ?? null,
    schema_notes: report.schemaNotes,
    status: report.status,
    forward: report.forward && { url: report.forward.url, status: report.forward.status, error: report.forward.error, duration_ms: report.forward.durationMs },
  };
}

/**
 * A forward taken over from another replica, as `webhooks listen --json` writes it: snake_case like the
 * API. Its `event` is 0.1.0's until 0.3.0, when it names the line as in every other line.
 */
export interface TakeoverJson extends DeprecatedKind<'takeover'> {
  /** Deprecated: the event taken over, as 0.1.0 wrote it, until 0.3.0; read `event_id`, `type` and `resource_id`. */
  event: { id: string | null; type: string | null; resource_id: string | null };
  at: string;
  event_id: string | null;
  type: string | null;
  resource_id: string | null;
  /** null when the event was not forwarded: `detail` says why. */
  forward: { url: string; status: number | null; error: string | null; duration_ms: number } | null;
  detail: string | null;
}

export function takeoverJson({ at, event, forward, detail }: TakeoverReport): TakeoverJson {
  return {
    event: { id: event.id ?? null, type: event.type ?? null, resource_id: event.resourceId ?? null },
    kind: 'takeover',
    at,
    event_id: event.id ?? null,
    type: event.type ?? null,
    resource_id: event.resourceId ?? null,
    forward: forward && { url: forward.url, status: forward.status, error: forward.error, duration_ms: forward.durationMs },
    detail,
  };
}

/** A request that was no delivery, as `webhooks listen --json` writes it. */
export interface RefusalJson extends DeprecatedKind<'refused'> {
  event: 'refused';
  at: string;
  status: number | null;
  detail: string;
  remote: string | null;
}

export function refusalJson({ at, status, detail, remote }: RefusalReport): RefusalJson {
  return { event: 'refused', kind: 'refused', at, status, detail, remote: remote ?? null };
}

/** One line for people; what a delivery claims (its id, type, resource) is anyone's to write, so the line is escaped. */
export function deliveryLine(report: DeliveryReport, times: TimeView, out: Output): string {
  return hangingLine(`${times.clock(report.at)}  `, terminalText(describeDelivery(report)), out);
}

function describeDelivery(report: DeliveryReport): string {
  const { event } = report;
  const what = [event.id ?? '-', event.type ?? '-', event.resourceId ?? '-'];
  const notes = report.schemaNotes.length > 0 ? `  schema notes: ${report.schemaNotes.join('; ')}` : '';
  switch (report.result) {
    case 'accepted': {
      const forward = report.forward ? `  → ${report.forward.status ?? report.forward.error} (${report.forward.durationMs} ms)` : '';
      return [...what, `verified, stored${forward}${notes}`].join('  ');
    }
    case 'duplicate':
      return [...what, `verified, duplicate: acknowledged, not forwarded again${notes}`].join('  ');
    case 'rejected':
      // With --strict-schema the notes are the detail.
      return [...what, `rejected ${report.reason}: ${report.detail} (answered ${report.status})`].join('  ');
    case 'injected':
    case 'store_failed':
      return [...what, `${report.result === 'injected' ? 'fault injected' : 'NOT STORED'}: ${report.detail} (answered ${report.status})`].join('  ');
  }
}
