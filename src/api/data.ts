import { SvcError } from '../core/errors.js';
import { jsonOf } from './answer.js';
import type { ApiResponse } from './exchange.js';

/**
 * The JSON body of an answer svc relies on as openapi.yaml types it (the key management of part 5);
 * `what` names the request in the error for an answer without one.
 */
export function dataOf<T>(answer: ApiResponse, what: string): T {
  const body = jsonOf(answer, what);
  if (body === undefined) {
    throw new SvcError(
      'server',
      'answer_empty',
      `${what} answered ${answer.status} with no body`,
      'the specification says responses are JSON (part 4); check --base-url points at the API itself',
    );
  }
  return body as T;
}
