/**
 * The applicant questions as of a fixed day (an injected clock): a date of birth after today and a
 * trip outside the last ten years are refused in plain words, whatever the real date.
 */
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { askApplicant } from '../../src/ui/applicant-questions.js';
import type { AnswerCheck, Prompter } from '../../src/ui/prompter.js';

const JUNE_15_2030: Clock = { now: () => Date.parse('2030-06-15T12:00:00Z'), sleep: () => Promise.resolve() };

/** A prompter that answers each input question with its next answer the question's check takes, noting what it said of those it refused. */
function scripted(answers: Record<string, string[]>, confirms: boolean[]): { prompter: Prompter; refusals: string[] } {
  const refusals: string[] = [];
  const take = (message: string, validate: AnswerCheck = () => true) => {
    for (let answer = answers[message]?.shift(); answer !== undefined; answer = answers[message]?.shift()) {
      const verdict = validate(answer);
      if (verdict === true) return answer;
      refusals.push(`${answer}: ${verdict}`);
    }
    throw new Error(`no answer to "${message}" is taken`);
  };
  const prompter: Prompter = {
    input: (message, options) => Promise.resolve(take(message, options?.validate)),
    select: (message) => Promise.reject(new Error(`unexpected choice: ${message}`)),
    secret: (message) => Promise.reject(new Error(`unexpected secret: ${message}`)),
    confirm: () => Promise.resolve(confirms.shift() ?? false),
  };
  return { prompter, refusals };
}

describe('askApplicant as of 2030-06-15', () => {
  it('takes a date of birth up to today and refuses the day after', async () => {
    const { prompter, refusals } = scripted({ 'Date of birth (YYYY-MM-DD):': ['2030-06-16', '2030-06-15'] }, [false]);
    const applicant = await askApplicant(prompter, { given_names: 'Jo', surname: 'Park', nationality: 'KR' }, JUNE_15_2030);
    expect(applicant.date_of_birth).toBe('2030-06-15');
    expect(refusals).toEqual(['2030-06-16: a date of birth in the past: 2030-06-16 is after today (2030-06-15)']);
  });

  it('takes trips from 2021 to 2030 and refuses 2020 and 2031', async () => {
    const everything = { given_names: 'Jo', surname: 'Park', nationality: 'KR', date_of_birth: '1985-01-30' };
    const optional = ['passport_number', 'passport_expiry', 'occupation', 'employment_status', 'monthly_income', 'savings', 'currency', 'previous_refusals'];
    const given = { ...everything, ...Object.fromEntries(optional.map((field) => [field, 'given'])) };
    const { prompter, refusals } = scripted(
      { 'Country visited, two letters:': ['DE', 'FR'], 'Year of the trip:': ['2020', '2031', '2021', '2030'] },
      // optional details, a trip, no overstay, another trip, no overstay, no more
      [true, true, false, true, false, false],
    );
    const applicant = await askApplicant(prompter, given, JUNE_15_2030);
    expect(applicant.travel_history).toEqual([
      { country: 'DE', year: 2021, overstayed: false },
      { country: 'FR', year: 2030, overstayed: false },
    ]);
    expect(refusals).toEqual(['2020: a year of the last ten, 2021 to 2030, like 2028', '2031: a year of the last ten, 2021 to 2030, like 2028']);
  });
});
