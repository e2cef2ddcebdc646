import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import schemas from './schemas.json' with { type: 'json' };

export type SchemaName = keyof typeof schemas;

/** One thing wrong with a value: the field at fault, as a path (`travel_history[0].country`), and what it must be. */
export interface Problem {
  field: string;
  message: string;
}

// The components are registered as one document under this id, so that their own
// `$ref: '#/components/schemas/X'` resolve inside it unchanged.
const DOCUMENT_ID = 'openapi.yaml';
let ajv: Ajv2020 | undefined;
const validators = new Map<SchemaName, ValidateFunction>();

function validatorFor(name: SchemaName): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });
    // ajv-formats is CommonJS; under NodeNext its default import is the module object.
    (formats as unknown as typeof formats.default)(ajv);
    ajv.addFormat('binary', true);
    ajv.addKeyword('x-spec').addKeyword('x-lowest-score').addKeyword('x-in-words').addKeyword('example').addKeyword('components');
    ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas } });
  }
  let validate = validators.get(name);
  if (!validate) {
    validate = ajv.getSchema(`${DOCUMENT_ID}#/components/schemas/${name}`);
    if (!validate) throw new Error(`openapi.yaml has no schema ${name}`);
    validators.set(name, validate);
  }
  return validate;
}

function fieldOf(error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
  return segments.reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment), '');
}

const FORMATS: Record<string, string> = { date: 'a date as YYYY-MM-DD', 'date-time': 'a UTC timestamp as YYYY-MM-DDThh:mm:ssZ' };

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'pattern': {
      // openapi.yaml says in words what its patterns of input mean (x-in-words): people read regular expressions badly.
      const words = (error.parentSchema as { 'x-in-words'?: string } | undefined)?.['x-in-words'];
      return words ? `must be ${words}` : `must match ${error.params.pattern}`;
    }
    case 'enum':
      return `must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'format':
      return `must be ${FORMATS[error.params.format as string] ?? error.params.format}`;
    default:
      return error.message ?? error.keyword;
  }
}

/** Ajv's errors as problems named by field. */
export function problemsOf(errors: readonly ErrorObject[] | null | undefined): Problem[] {
  // `if` only reports that its `then` failed, which the `then` errors already say.
  return (errors ?? []).filter((error) => error.keyword !== 'if').map((error) => ({ field: fieldOf(error), message: messageOf(error) }));
}

/** Everything `value` breaks of the named component schema of openapi.yaml; empty when it is valid. */
export function findProblems(name: SchemaName, value: unknown): Problem[] {
  const validate = validatorFor(name);
  return validate(value) ? [] : problemsOf(validate.errors);
}
