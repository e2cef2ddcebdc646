import { EVENT_SCHEMAS as STATED_EVENT_SCHEMAS } from '../api/operations.js';
import type { EventType } from '../api/types.js';
import { findProblems, type Problem, type SchemaName } from '../api/validate.js';
import { prefixObject } from './prefix-json.js';
import { isJsonObject } from '../core/json-object.js';

/** The schema of openapi.yaml for each event kind it lists; a body that differs from it gets schema notes. */
export const EVENT_SCHEMAS: Record<EventType, SchemaName> = STATED_EVENT_SCHEMAS;

/** The kinds openapi.yaml lists. Part 6 does not give a definitive list, so other kinds are received too. */
export const EVENT_TYPES = Object.keys(EVENT_SCHEMAS) as EventType[];

export function isListedEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_SCHEMAS, value);
}

/** What a receiver shows of an event: its id, kind and the resource it is about. */
export interface EventSummary {
  id: string;
  /** Any non-empty kind, also one openapi.yaml does not list. */
  type: string;
  resourceId: string | undefined;
}

export type EnvelopeReading =
  | { ok: true; envelope: Record<string, unknown>; event: EventSummary }
  | { ok: false; reason: 'body_not_json' | 'envelope_invalid'; detail: string; claimed: Partial<EventSummary> };

const utf8 = new TextDecoder('utf-8', { fatal: true });

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * The resource an event is about: `data.id`; else `data.<resource>_id`, the resource being the
 * kind's first word (part 6's short `report.completed` names its report `report_id`); else
 * `data.object.id`, the envelope of Stripe, whose conventions openapi.yaml follows elsewhere.
 */
function resourceIdOf(type: string | undefined, data: Record<string, unknown>): string | undefined {
  const resource = type?.split('.')[0];
  return text(data.id) ?? (resource ? text(data[`${resource}_id`]) : undefined) ?? (isJsonObject(data.object) ? text(data.object.id) : undefined);
}

/** The fields a body claims, for showing what arrived; never trusted before the signature is. */
function claimedBy(value: unknown): Partial<EventSummary> {
  if (!isJsonObject(value)) return {};
  const type = text(value.type);
  return { id: text(value.id), type, resourceId: resourceIdOf(type, isJsonObject(value.data) ? value.data : {}) };
}

/** Parses a body as UTF-8 JSON, or says why it is not. */
function parseBody(body: Uint8Array): { value: unknown } | { detail: string } {
  let decoded: string;
  try {
    decoded = utf8.decode(body);
  } catch {
    return { detail: 'the body is not valid UTF-8' };
  }
  try {
    return { value: JSON.parse(decoded) };
  } catch (error) {
    return { detail: `the body is not JSON: ${(error as Error).message}` };
  }
}

/** The longest claim shown of an unauthenticated body: its id could be a megabyte long. */
const MAX_CLAIM_LENGTH = 200;

const clipped = (claim: string | undefined) => (claim !== undefined && claim.length > MAX_CLAIM_LENGTH ? `${claim.slice(0, MAX_CLAIM_LENGTH)}…` : claim);

/**
 * All that is read of a body that failed verification: anyone can send one, and parsing 1 MiB of
 * nested arrays whole takes JSON.parse hundreds of milliseconds. As much as a rejected delivery
 * keeps (REJECTED_BODY_BYTES), so that what it claims can be seen in what is kept.
 */
const UNVERIFIED_PREFIX_BYTES = 4096;

/** How deep claims are read: the envelope, its data, data.object (resourceIdOf). */
const CLAIM_DEPTH = 3;

/**
 * Best-effort id, type and resource a body claims, for showing a delivery that failed verification:
 * what its first UNVERIFIED_PREFIX_BYTES say, CLAIM_DEPTH levels deep, whatever follows them.
 */
export function claimedEvent(body: Uint8Array): Partial<EventSummary> {
  let prefix: string;
  try {
    // stream: a character cut at the end of the prefix is left out, not an error.
    prefix = new TextDecoder('utf-8', { fatal: true }).decode(body.subarray(0, UNVERIFIED_PREFIX_BYTES), { stream: true });
  } catch {
    return {};
  }
  const claimed = claimedBy(prefixObject(prefix, CLAIM_DEPTH));
  return { id: clipped(claimed.id), type: clipped(claimed.type), resourceId: clipped(claimed.resourceId) };
}

const shown = (value: unknown) => JSON.stringify(value)?.slice(0, 60) ?? String(value);

/** What the body breaks of part 6's envelope: an object with an `evt_` id, a type and a data object. */
function statedProblems(value: unknown): string[] {
  if (!isJsonObject(value))
    return [
      `the body is ${Array.isArray(value) ? 'a JSON array' : `the JSON ${value === null ? 'null' : typeof value}`}, not an object with id, type and data (part 6)`,
    ];
  const problems: string[] = [];
  if (typeof value.id !== 'string' || !value.id.startsWith('evt_') || value.id === 'evt_') {
    const rule = "evt_ followed by the event's identifier (part 6)";
    problems.push(value.id === undefined ? `id: is required, ${rule}` : `id: ${shown(value.id)} is not ${rule}`);
  }
  if (value.type === undefined) problems.push('type: is required, the event kind as a string (part 6)');
  else if (value.type === '') problems.push('type: is empty; it names the event kind (part 6)');
  else if (typeof value.type !== 'string') problems.push(`type: ${shown(value.type)} is not a string (part 6)`);
  if (!isJsonObject(value.data))
    problems.push(value.data === undefined ? 'data: is required, an object (part 6)' : `data: ${shown(value.data)} is not an object (part 6)`);
  return problems;
}

/**
 * Reads a body by what part 6 states: UTF-8 JSON, an object with an `id` starting with `evt_`, a
 * non-empty `type` and a `data` object. Nothing else is required here: see schemaNotes.
 */
export function readEnvelope(body: Uint8Array): EnvelopeReading {
  const parsed = parseBody(body);
  if ('detail' in parsed) return { ok: false, reason: 'body_not_json', detail: parsed.detail, claimed: {} };
  const problems = statedProblems(parsed.value);
  if (problems.length > 0) return { ok: false, reason: 'envelope_invalid', detail: problems.join('; '), claimed: claimedBy(parsed.value) };
  const envelope = parsed.value as Record<string, unknown>;
  return { ok: true, envelope, event: claimedBy(envelope) as EventSummary };
}

const MAX_NOTES = 10;

/** One line per difference; the fields missing from one object are named together. */
function describe(problems: readonly Problem[], schema: SchemaName): string[] {
  const missing = new Map<string, string[]>();
  const lines: string[] = [];
  for (const problem of problems) {
    if (problem.message !== 'is required') {
      lines.push(`${problem.field || 'body'}: ${problem.message} (openapi.yaml ${schema})`);
      continue;
    }
    const dot = problem.field.lastIndexOf('.');
    const parent = dot < 0 ? '' : problem.field.slice(0, dot);
    if (!missing.has(parent)) missing.set(parent, []);
    missing.get(parent)!.push(problem.field.slice(dot + 1));
  }
  const required = [...missing].map(([parent, fields]) =>
    fields.length === 1
      ? `${parent ? `${parent}.` : ''}${fields[0]}: is required (openapi.yaml ${schema})`
      : `${parent || 'body'}: ${fields.join(', ')} are required (openapi.yaml ${schema})`,
  );
  return [...required, ...lines];
}

/**
 * How an envelope that meets part 6 differs from openapi.yaml, whose event schemas go beyond it
 * (assumed payloads, `created_at` on every event, a closed list of kinds), and from its own
 * `Service-Event` header. Notes, not refusals: another implementation may choose otherwise.
 */
export function schemaNotes(envelope: Record<string, unknown>, serviceEvent?: string): string[] {
  const type = envelope.type as string;
  let notes: string[];
  if (isListedEventType(type)) {
    notes = describe(findProblems(EVENT_SCHEMAS[type], envelope), EVENT_SCHEMAS[type]);
  } else {
    const others = findProblems('EventEnvelope', envelope).filter((problem) => problem.field !== 'type');
    notes = [`type: ${shown(type)} is not a kind openapi.yaml lists (${EVENT_TYPES.join(', ')})`, ...describe(others, 'EventEnvelope')];
  }
  // The header is not signed: the body's type is the one that counts.
  if (serviceEvent !== undefined && serviceEvent !== type)
    notes.push(`Service-Event header: ${shown(serviceEvent)}, but the signed body's type is ${shown(type)}`);
  if (notes.length <= MAX_NOTES) return notes;
  return [...notes.slice(0, MAX_NOTES - 1), `and ${notes.length - MAX_NOTES + 1} more differences from openapi.yaml`];
}
