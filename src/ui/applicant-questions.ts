import { EMPLOYMENT_STATUSES, RECENT_TRAVEL_YEARS } from '../spec/enums.js';
import { countryCode, currencyCode, trimmed } from '../spec/normalise.js';
import schemas from '../api/schemas.json' with { type: 'json' };
import { type Clock, systemClock } from '../core/clock.js';
import { chooseOrType } from './ask.js';
import type { AnswerCheck, Prompter } from './prompter.js';

/** The fields openapi.yaml's ApplicantInput requires of a new applicant. */
const REQUIRED = schemas.ApplicantInput.then.required;

interface Question {
  message: string;
  /** What the answer is taken as: trimmed, codes in capitals; a number where one is asked for. */
  take?: (answer: string) => unknown;
  check?: AnswerCheck;
  choices?: readonly string[];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

// Each check sees the answer as it will be taken, and says in plain words what it needs.
const required =
  (check?: AnswerCheck): AnswerCheck =>
  (answer) =>
    answer.trim() === '' ? 'an answer is needed' : check ? check(answer) : true;
const optional =
  (check: AnswerCheck): AnswerCheck =>
  (answer) =>
    answer.trim() === '' || check(answer);
const date: AnswerCheck = (answer) => isDate(answer.trim()) || 'a date as YYYY-MM-DD, like 1990-04-12';
const country: AnswerCheck = (answer) => /^[A-Z]{2}$/.test(countryCode(answer) ?? '') || 'two letters, like FR or US';
const currency: AnswerCheck = (answer) => /^[A-Z]{3}$/.test(currencyCode(answer) ?? '') || 'three letters, like EUR or USD';
const amount: AnswerCheck = (answer) => (answer.trim() !== '' && Number.isFinite(Number(answer)) && Number(answer) >= 0) || 'an amount, like 2500 or 1250.50';
const count: AnswerCheck = (answer) => /^\d+$/.test(answer.trim()) || 'a whole number, like 0 or 2';
const passport: AnswerCheck = (answer) => /^[A-Z0-9]{5,20}$/.test(answer.trim().toUpperCase()) || '5 to 20 letters and digits, like X1234567';

/** A date of birth: a date, not after `today` (YYYY-MM-DD). */
const birthDate =
  (today: string): AnswerCheck =>
  (answer) => {
    const checked = date(answer);
    if (checked !== true) return checked;
    return answer.trim() <= today || `a date of birth in the past: ${answer.trim()} is after today (${today})`;
  };

/** The questions for an applicant's fields, as of `today` (YYYY-MM-DD). */
const questions = (today: string): Record<string, Question> => ({
  given_names: { message: 'Given names, as in the passport:' },
  surname: { message: 'Surname, as in the passport:' },
  date_of_birth: { message: 'Date of birth (YYYY-MM-DD):', check: birthDate(today) },
  nationality: { message: 'Nationality, two letters (PT, US, …):', take: countryCode, check: country },
  passport_number: { message: 'Passport number:', take: (answer) => answer.trim().toUpperCase(), check: passport },
  passport_expiry: { message: 'Passport expiry date (YYYY-MM-DD):', check: date },
  occupation: { message: 'Occupation:' },
  employment_status: { message: 'Employment status:', choices: EMPLOYMENT_STATUSES },
  monthly_income: { message: 'Monthly income:', take: (answer) => Number(answer), check: amount },
  savings: { message: 'Savings:', take: (answer) => Number(answer), check: amount },
  currency: { message: 'Currency of income and savings, three letters (EUR, USD, …):', take: currencyCode, check: currency },
  previous_refusals: { message: 'Earlier visa refusals (a number):', take: (answer) => Number(answer), check: count },
});

const SKIP = '(skip)';

async function ask(prompter: Prompter, question: Question, needed: boolean): Promise<unknown> {
  if (question.choices) {
    const choice = await chooseOrType(prompter, question.message, question.choices, required(), needed ? [] : [SKIP]);
    return choice === SKIP ? undefined : trimmed(choice);
  }
  const answer = await prompter.input(needed ? question.message : `${question.message} (Enter to skip)`, {
    validate: needed ? required(question.check) : optional(question.check ?? (() => true)),
  });
  if (answer.trim() === '') return undefined;
  return (question.take ?? trimmed)(answer);
}

async function askTrips(prompter: Prompter, thisYear: number): Promise<Array<{ country: string; year: number; overstayed: boolean }>> {
  const trips = [];
  const earliest = thisYear - (RECENT_TRAVEL_YEARS - 1);
  const year: AnswerCheck = (answer) =>
    (/^\d{4}$/.test(answer.trim()) && Number(answer) >= earliest && Number(answer) <= thisYear) ||
    `a year of the last ten, ${earliest} to ${thisYear}, like ${thisYear - 2}`;
  while (await prompter.confirm(trips.length === 0 ? 'Add a trip abroad of the last ten years?' : 'Add another trip?')) {
    trips.push({
      country: countryCode(await prompter.input('Country visited, two letters:', { validate: required(country) }))!,
      year: Number(await prompter.input('Year of the trip:', { validate: required(year) })),
      overstayed: await prompter.confirm('Did the stay go beyond what the visa allowed?'),
    });
  }
  return trips;
}

/**
 * Asks at a terminal for what a new applicant lacks: each field openapi.yaml requires that `given`
 * has not, then, if the person wants, the optional ones. Answers are taken as meant (`fr` is FR)
 * or refused in plain words.
 */
export async function askApplicant(prompter: Prompter, given: Record<string, unknown>, clock: Clock = systemClock): Promise<Record<string, unknown>> {
  const today = new Date(clock.now()).toISOString().slice(0, 10);
  const asked = questions(today);
  const answers: Record<string, unknown> = {};
  for (const field of REQUIRED) {
    if (given[field] === undefined) answers[field] = await ask(prompter, asked[field]!, true);
  }
  const optionalFields = Object.keys(asked).filter((field) => !REQUIRED.includes(field) && given[field] === undefined);
  if (
    (optionalFields.length > 0 || given.travel_history === undefined) &&
    (await prompter.confirm('Add optional details (passport, occupation, income, travel history)?', false))
  ) {
    for (const field of optionalFields) {
      const value = await ask(prompter, asked[field]!, false);
      if (value !== undefined) answers[field] = value;
    }
    if (given.travel_history === undefined) answers.travel_history = await askTrips(prompter, Number(today.slice(0, 4)));
  }
  return { ...given, ...answers };
}

/** Whether a new applicant made of `given` lacks a field openapi.yaml requires. */
export function lacksRequired(given: Record<string, unknown>): boolean {
  return REQUIRED.some((field) => given[field] === undefined);
}
