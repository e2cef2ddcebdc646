import type { ApplicantAnswer } from '../api/types.js';
import type { Output } from './io.js';
import { presentFields, renderTable } from './table.js';
import type { TimeView } from './time.js';

function amount(value: number | null | undefined, currency: string | null | undefined): string | undefined {
  return typeof value === 'number' ? `${value}${currency ? ` ${currency}` : ''}` : undefined;
}

/**
 * One applicant profile, as `svc applicants get` shows it to people: the sandbox's fields that the
 * answer carries; the fields of another service's own are left to --json.
 */
export function renderApplicant(applicant: ApplicantAnswer, times: TimeView, out: Output): string {
  const parts = [
    presentFields(
      [
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
        ['created', times.full(applicant.created_at)],
        ['updated', times.full(applicant.updated_at)],
      ],
      out,
    ),
  ];
  const trips = Array.isArray(applicant.travel_history) ? applicant.travel_history : [];
  if (trips.length) {
    parts.push(
      'Travel history',
      renderTable(
        ['country', 'year', 'overstayed'],
        trips.map((trip) => [trip.country, trip.year, trip.overstayed ? 'yes' : 'no']),
        out,
      ),
    );
  }
  return parts.filter(Boolean).join('\n\n');
}
