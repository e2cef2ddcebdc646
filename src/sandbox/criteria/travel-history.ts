import { RECENT_TRAVEL_YEARS } from '../../spec/enums.js';
import { yearOf } from '../dates.js';
import { listed } from '../wording.js';
import { STRICT_DESTINATIONS } from './destinations.js';
import type { Assessment, ReportAnalysisInput } from './types.js';

const TRAVEL_HISTORY_POINTS = {
  /** Without recent trips, nothing shows that earlier stays ended on time. */
  no_recent_travel: 60,
  per_recent_trip: -10,
  /** On top of a trip's own: leaving a strict destination on time is the best evidence there is. */
  per_recent_strict_trip: -10,
  /** Once, for having visited this destination before and left on time. */
  earlier_visit_to_destination: -10,
  minimum: 5,
  first_overstay: 85,
  per_further_overstay: 15,
} as const;

/** Trips abroad in the last 10 years and to which destinations; an overstay at any time outweighs all of them. */
export function assessTravelHistory({ applicant, destination, today }: ReportAnalysisInput): Assessment {
  const overstays = applicant.travel_history.filter((trip) => trip.overstayed);
  if (overstays.length > 0) {
    const where = listed(overstays.map((trip) => `${trip.country} (${trip.year})`));
    return {
      score: Math.min(100, TRAVEL_HISTORY_POINTS.first_overstay + TRAVEL_HISTORY_POINTS.per_further_overstay * (overstays.length - 1)),
      detail: `overstayed ${overstays.length === 1 ? 'once' : `${overstays.length} times`}: ${where}`,
      advice: `Explain the overstay in ${where} with evidence of the circumstances, and show strong ties to the home country.`,
    };
  }

  const since = yearOf(today) - (RECENT_TRAVEL_YEARS - 1);
  const recent = applicant.travel_history.filter((trip) => trip.year >= since);
  const strict = recent.filter((trip) => STRICT_DESTINATIONS.has(trip.country));
  const visitedDestination = recent.some((trip) => trip.country === destination);
  const score = Math.max(
    TRAVEL_HISTORY_POINTS.minimum,
    TRAVEL_HISTORY_POINTS.no_recent_travel +
      TRAVEL_HISTORY_POINTS.per_recent_trip * recent.length +
      TRAVEL_HISTORY_POINTS.per_recent_strict_trip * strict.length +
      (visitedDestination ? TRAVEL_HISTORY_POINTS.earlier_visit_to_destination : 0),
  );
  if (recent.length === 0) {
    return {
      score,
      detail: `no trips abroad since ${since}`,
      advice: `Add evidence of ties to the home country (employment, property, family): no trips since ${since} show that earlier stays ended on time.`,
    };
  }
  const strictPart =
    strict.length === 0
      ? 'none to a strict-policy destination'
      : `${strict.length} to strict-policy destinations (${listed(unique(strict.map((trip) => trip.country)))})`;
  return {
    score,
    detail: `${recent.length} trip${recent.length === 1 ? '' : 's'} abroad since ${since}, ${strictPart}${visitedDestination ? `, including ${destination}` : ''}; no overstays`,
    advice: 'Add evidence of ties to the home country (employment, property, family) and of the earlier trips (visas, entry stamps).',
  };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
