import { findProblems, type SchemaName } from '../api/validate.js';
import { HttpError } from './http.js';

/** The body, if it is valid against the named schema of openapi.yaml; else 422 naming the first field at fault. */
export function validBody<T>(name: SchemaName, body: unknown): T {
  const problems = findProblems(name, body);
  if (problems.length > 0) {
    const message = problems.map((problem) => `${problem.field || 'body'}: ${problem.message}`).join('; ');
    throw new HttpError(422, 'invalid_request', message, problems[0]!.field || undefined);
  }
  return body as T;
}
