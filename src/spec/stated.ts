import { SvcError } from '../core/errors.js';

/**
 * What the specification states about values svc sends (part 2): identifier prefixes, a
 * destination of two uppercase letters, a snake_case visa type. Only these are checked before a
 * request leaves; everything openapi.yaml had to assume (enums, lengths, required fields, unknown
 * fields) is for the service to judge, and its answer is shown.
 */
export interface StatedRule {
  test(value: string): boolean;
  /** What the value must be, after the field's name. */
  says: string;
}

function prefixed(prefix: string): StatedRule {
  return { test: (value) => value.startsWith(prefix) && value.length > prefix.length, says: `must be an identifier starting with ${prefix} (spec part 2)` };
}

export const STATED = {
  applicantId: prefixed('app_'),
  reportId: prefixed('rep_'),
  documentId: prefixed('doc_'),
  keyId: prefixed('key_'),
  eventId: { ...prefixed('evt_'), says: 'must be an event id starting with evt_ (spec part 6)' },
  destination: { test: (value: string) => /^[A-Z]{2}$/.test(value), says: 'must be two uppercase letters, like DE (spec part 2)' },
  visaType: { test: (value: string) => /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(value), says: 'must be a snake_case name, like work_holiday (spec part 2)' },
} satisfies Record<string, StatedRule>;

/** A field to check: its name in the request, its value (undefined: not sent, not checked) and the rule. */
type StatedCheck = [field: string, value: string | undefined, rule: StatedRule];

/** Throws an invalid-input error naming every field that breaks a stated rule, before anything is sent. */
export function assertStated(checks: StatedCheck[]): void {
  const broken = checks.filter(([, value, rule]) => value !== undefined && !rule.test(value));
  if (broken.length === 0) return;
  const fields = broken.map(([field]) => field);
  const what = fields.every((field) => field.startsWith('--')) ? 'flag' : 'field';
  throw new SvcError(
    'invalidInput',
    'invalid_input',
    `${broken.map(([field, value, rule]) => `${field} "${value}" ${rule.says}`).join('; ')} (${what}${fields.length === 1 ? '' : 's'} ${fields.join(', ')})`,
    'correct the value and run the command again; nothing was sent',
  );
}

/** A prompt's check of an answer against a stated rule. */
export function answerCheck(rule: StatedRule): (answer: string) => true | string {
  return (answer) => rule.test(answer) || rule.says;
}
