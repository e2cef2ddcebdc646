import type { Applicant } from '../api/types.js';
import { renderFields, renderTable } from './table.js';

function amount(value: number | null, currency: string | null): string | null {
  return value === null ? null : `${value}${currency ? ` ${currency}` : ''}`;
}

/** One applicant profile, as `svc applicants get` shows it to people. */
export function renderApplicant(applicant: Applicant): string {
  const parts = [
    renderFields([
      ['id', applicant.id],
      ['given names', applicant.given_names],
      ['surname', applicant.surname],
      ['date of birth', applicant.date_of_birth],
      ['nationality', applicant.nationality],
      ['passport number', applicant.passport_number],
      ['passport expiry', applicant.passport_expiry],
      ['occupation', applicant.occupation],
      ['employment status', applicant.employment_status],
      ['monthly income', amount(applicant.monthly_income, applicant.currency)],
      ['savings', amount(applicant.savings, applicant.currency)],
      ['previous refusals', applicant.previous_refusals],
      ['created', applicant.created_at],
      ['updated', applicant.updated_at],
    ]),
  ];
  if (applicant.travel_history.length) {
    parts.push(
      'Travel history',
      renderTable(
        ['country', 'year', 'overstayed'],
        applicant.travel_history.map((trip) => [trip.country, trip.year, trip.overstayed ? 'yes' : 'no']),
      ),
    );
  }
  return parts.join('\n\n');
}
