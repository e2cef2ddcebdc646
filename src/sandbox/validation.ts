import { findProblems, type Problem, type SchemaName } from '../api/validate.js';
import { clipped, HttpError } from './http.js';

/** Enough of a long value to recognise it (an unknown field may be named by up to 1 MiB of body). */
const SHOWN_FIELD_LENGTH = 100;
const SHOWN_PROBLEMS = 5;

/** 422 `invalid_request` naming the first field at fault, and what is wrong with the first few. */
function refusal(problems: Problem[]): HttpError {
  const named = (problem: Problem) => clipped(problem.field || 'body', SHOWN_FIELD_LENGTH);
  const shown = problems.slice(0, SHOWN_PROBLEMS).map((problem) => `${named(problem)}: ${problem.message}`);
  if (problems.length > SHOWN_PROBLEMS) shown.push(`and ${problems.length - SHOWN_PROBLEMS} more`);
  const first = problems[0]!;
  return new HttpError(422, 'invalid_request', shown.join('; '), first.field ? named(first) : undefined);
}

/** The body, if it is valid against the named schema of openapi.yaml; else 422 naming the first field at fault. */
export function validBody<T>(name: SchemaName, body: unknown): T {
  const problems = findProblems(name, body);
  if (problems.length > 0) throw refusal(problems);
  return body as T;
}

/** 422 naming the query parameter, unless its value is valid against the named schema of openapi.yaml. */
export function assertValidParam(name: SchemaName, param: string, value: string): void {
  const problems = findProblems(name, value);
  if (problems.length > 0) throw refusal(problems.map((problem) => ({ ...problem, field: param })));
}
