import type { VisaType } from '../../api/types.js';
import { amount } from '../wording.js';
import { COST_FACTOR, costLevelOf } from './destinations.js';
import type { Assessment, ReportAnalysisInput } from './types.js';

/** Approximate value of one unit in euros: enough to compare means, not to convert money. */
const EUR_PER_UNIT: ReadonlyMap<string, number> = new Map([
  ['EUR', 1],
  ['USD', 0.92],
  ['GBP', 1.17],
  ['CHF', 1.05],
  ['JPY', 0.0062],
  ['CNY', 0.13],
  ['INR', 0.011],
  ['CAD', 0.68],
  ['AUD', 0.61],
  ['NZD', 0.56],
  ['SEK', 0.088],
  ['NOK', 0.086],
  ['DKK', 0.134],
  ['PLN', 0.23],
  ['CZK', 0.04],
  ['TRY', 0.027],
  ['RUB', 0.01],
  ['UAH', 0.022],
  ['BRL', 0.17],
  ['MXN', 0.05],
  ['ZAR', 0.05],
  ['NGN', 0.0006],
  ['KES', 0.0071],
  ['EGP', 0.019],
  ['MAD', 0.092],
  ['AED', 0.25],
  ['SAR', 0.25],
  ['KRW', 0.00068],
  ['SGD', 0.69],
  ['HKD', 0.12],
  ['THB', 0.026],
  ['VND', 0.000037],
  ['IDR', 0.000058],
  ['PHP', 0.016],
  ['PKR', 0.0033],
  ['BDT', 0.0078],
]);

/** Funds expected for a visa of each type, in euros, before the destination's cost factor. */
const EXPECTED_FUNDS_EUR: Readonly<Record<VisaType, number>> = {
  tourist: 5_000,
  business: 5_000,
  family: 5_000,
  transit: 1_000,
  student: 15_000,
  work: 3_000,
};

/** Available funds are the savings plus this many months of income. */
const INCOME_MONTHS = 3;

/** Score by coverage (available ÷ expected funds): the first row whose minimum the coverage reaches. */
const COVERAGE_SCORES: ReadonlyArray<{ minimum: number; score: number }> = [
  { minimum: 3, score: 5 },
  { minimum: 2, score: 15 },
  { minimum: 1.5, score: 25 },
  { minimum: 1, score: 35 },
  { minimum: 0.75, score: 50 },
  { minimum: 0.5, score: 65 },
  { minimum: 0.25, score: 80 },
  { minimum: 0, score: 95 },
];

/** Means that cannot be judged (no amounts, no currency, a currency without a rate) are a medium-high risk. */
const UNKNOWN_MEANS_SCORE = 65;
/** Added when no bank statement backs the profile's figures. */
const NO_BANK_STATEMENT_POINTS = 10;

/** Monthly income and savings, in euros, against the funds expected for the visa type and the destination's cost of living. */
export function assessFinancialMeans({ applicant, documents, destination, visa_type }: ReportAnalysisInput): Assessment {
  const evidenced = documents.some((document) => document.type === 'bank_statement');
  const evidence = evidenced ? 'a bank statement is uploaded' : 'no bank statement uploaded';
  const extra = evidenced ? 0 : NO_BANK_STATEMENT_POINTS;
  const { monthly_income: income, savings, currency } = applicant;
  const rate = currency === null ? undefined : EUR_PER_UNIT.get(currency);

  if (rate === undefined || (income === null && savings === null)) {
    const reason =
      income === null && savings === null
        ? 'no income or savings in the profile'
        : currency === null
          ? 'the profile gives amounts without a currency'
          : `no exchange rate for ${currency}`;
    return {
      score: UNKNOWN_MEANS_SCORE + extra,
      detail: `${reason}, so means cannot be judged; ${evidence}`,
      advice: 'Add monthly income, savings and their currency to the profile, and upload a recent bank statement.',
    };
  }

  const costLevel = costLevelOf(destination);
  const expected = EXPECTED_FUNDS_EUR[visa_type] * COST_FACTOR[costLevel];
  const available = ((savings ?? 0) + INCOME_MONTHS * (income ?? 0)) * rate;
  const coverage = available / expected;
  const score = (COVERAGE_SCORES.find((row) => coverage >= row.minimum)?.score ?? 0) + extra;
  const makeUp = `savings ${amount(savings ?? 0)} + ${INCOME_MONTHS} × income ${amount(income ?? 0)} ${currency}`;
  return {
    score,
    detail:
      `funds of ${amount(available)} EUR (${makeUp}) cover ${coverage.toFixed(2)}× the ${amount(expected)} EUR expected ` +
      `for a ${visa_type} visa to ${destination} (${costLevel} cost of living); ${evidence}`,
    advice:
      coverage < 1
        ? `Show more funds: about ${amount(expected)} EUR is expected for a ${visa_type} visa to ${destination}, the profile shows ${amount(available)} EUR; add savings, a sponsor's letter or a bank statement.`
        : 'Upload a recent bank statement that shows the funds of the profile.',
  };
}
