import { FREE_MOVEMENT_AREA, SHORT_STAY_WAIVER_GROUP, STRICT_DESTINATIONS } from './destinations.js';
import type { Assessment, ReportAnalysisInput } from './types.js';

const DESTINATION_POLICY_SCORES = { free_movement: 0, short_stay_waiver: 10, moderate: 30, strict: 60 } as const;

const SHORT_STAY_VISA_TYPES: ReadonlySet<string> = new Set(['tourist', 'business', 'transit']);

/** How demanding the destination's visa regime is for this nationality and this kind of stay. */
export function assessDestinationPolicy({ applicant, destination, visa_type }: ReportAnalysisInput): Assessment {
  const nationality = applicant.nationality;
  if (FREE_MOVEMENT_AREA.has(nationality) && FREE_MOVEMENT_AREA.has(destination)) {
    return {
      score: DESTINATION_POLICY_SCORES.free_movement,
      detail: `${nationality} nationals move freely to ${destination} (EU, EEA and Switzerland)`,
      advice: `Carry a valid passport or national identity card to ${destination}.`,
    };
  }
  if (SHORT_STAY_VISA_TYPES.has(visa_type) && SHORT_STAY_WAIVER_GROUP.has(nationality) && SHORT_STAY_WAIVER_GROUP.has(destination)) {
    return {
      score: DESTINATION_POLICY_SCORES.short_stay_waiver,
      detail: `${nationality} nationals visit ${destination} for short stays without a visa`,
      advice: `Check whether ${destination} asks ${nationality} nationals for an electronic travel authorisation before the trip.`,
    };
  }
  if (STRICT_DESTINATIONS.has(destination)) {
    return {
      score: DESTINATION_POLICY_SCORES.strict,
      detail: `${destination} applies a strict visa policy to ${nationality} nationals`,
      advice: `Apply well ahead of travel with complete evidence: ${destination} applies a strict visa policy.`,
    };
  }
  return {
    score: DESTINATION_POLICY_SCORES.moderate,
    detail: `${destination} applies a moderate visa policy to ${nationality} nationals`,
    advice: `Check ${destination}'s current entry requirements for ${nationality} nationals before applying.`,
  };
}
