/**
 * Reading a single answer of an implementation svc did not write. Success codes, creation and
 * deletion bodies are not shown by the specification (part 4), so an answer is read as text
 and whatever it holds is taken: nothing, JSON, or the resource wrapped the
 * way common conventions wrap it.
 */
import { SvcError } from '../core/errors.js';
import type { ApiResponse } from './exchange.js';
import { resourceOf } from './list-answer.js';
import { isJsonObject, type JsonObject } from '../core/json-object.js';

/** The JSON of a body read as text; undefined when it is empty or not JSON. */
export function parsedOrUndefined(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The JSON of an answer that should carry JSON (the spec: "responses are JSON"); undefined when it
 * has no body. `what` names the request in the error for a body that is not JSON.
 */
export function jsonOf(answer: ApiResponse, what: string): unknown {
  const body = parsedOrUndefined(answer.text);
  if (body === undefined && answer.text.trim() !== '') {
    throw new SvcError(
      'server',
      'answer_not_json',
      `${what} answered ${answer.status} with a body that is not JSON (${answer.headers.get('content-type') ?? 'no Content-Type'})`,
      'the specification says responses are JSON (part 4); check --base-url points at the API itself, not a proxy or a web page',
    );
  }
  return body;
}

function isResource(value: unknown): value is JsonObject & { id: string | number } {
  return isJsonObject(value) && (typeof value.id === 'string' || typeof value.id === 'number');
}

/**
 * The resource a single-resource answer holds: the answer itself when it carries an `id`, or the
 * resource it wraps in `data` (JSON:API, attributes flattened) or under a single key
 * (`{"report": {…}}`). Any other object is taken as it is; no object at all is `{}`.
 */
export function resourceIn(body: unknown): JsonObject {
  if (!isJsonObject(body)) return {};
  if (isResource(body)) return body;
  if (isResource(body.data)) return resourceOf(body.data) as JsonObject;
  const wrapped = Object.values(body).filter(isResource);
  return wrapped.length === 1 && Object.keys(body).length === 1 ? wrapped[0]! : body;
}

/**
 * The resource a GET of one resource, or a creation the spec says answers with the resource,
 * answered, as `resourceIn` finds it: an answer that holds none (no object with an id: `{}`, a
 * list, a page) cannot be shown as that resource.
 */
export function fetchedResource(
  body: unknown,
  what: string,
  hint = 'check --base-url points at the API itself; `--json` shows the answer as it came',
): JsonObject & { id: string | number } {
  const resource = resourceIn(body);
  if (isResource(resource)) return resource;
  throw new SvcError('server', 'answer_not_a_resource', `${what} answered with no resource in it (no object with an id)`, hint);
}

/** The id of a resource as answered, for a request that follows it up; an answer without one is named as such. */
export function idOf(resource: JsonObject, what: string): string {
  const id = resource.id;
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number') return String(id);
  throw new SvcError('server', 'id_missing', `the answer to ${what} carries no id`, 'svc needs the id to go on; `--json` shows the answer as it came');
}

/**
 * The result of an operation whose answer is not shown (a DELETE): the answer's own object as it
 * came, with the `defaults` it leaves out added after its fields; only the defaults when the answer
 * holds no object (204, an empty or a text body).
 */
export function withDefaults(body: unknown, defaults: JsonObject): JsonObject {
  const answered = isJsonObject(body) ? body : {};
  return { ...answered, ...Object.fromEntries(Object.entries(defaults).filter(([name]) => !(name in answered))) };
}
