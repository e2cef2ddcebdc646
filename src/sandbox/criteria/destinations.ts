/**
 * Small, approximate tables of visa policy and cost of living. They make the sandbox's analysis
 * explainable; they are not a statement of any state's current rules.
 */

const EU = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
];

/** EU, EEA and Switzerland: their nationals move freely among them, for any purpose. */
export const FREE_MOVEMENT_AREA: ReadonlySet<string> = new Set([...EU, 'IS', 'LI', 'NO', 'CH']);

const SCHENGEN_AREA: ReadonlySet<string> = new Set([
  'AT',
  'BE',
  'BG',
  'CH',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IS',
  'IT',
  'LI',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'NO',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
]);

/** Destinations whose visa regimes refuse most often and ask for the most evidence. */
export const STRICT_DESTINATIONS: ReadonlySet<string> = new Set([...SCHENGEN_AREA, 'US', 'GB', 'IE', 'CA', 'AU', 'NZ', 'JP']);

/** Nationals of these states visit each other for short stays (tourism, business, transit) without a visa. */
export const SHORT_STAY_WAIVER_GROUP: ReadonlySet<string> = new Set([...FREE_MOVEMENT_AREA, 'US', 'GB', 'CA', 'AU', 'NZ', 'JP', 'KR', 'SG']);

export type CostLevel = 'high' | 'medium' | 'low';

const HIGH_COST: ReadonlySet<string> = new Set(['AU', 'CH', 'DK', 'GB', 'HK', 'IE', 'IL', 'IS', 'LU', 'NO', 'NZ', 'SG', 'US']);
const LOW_COST: ReadonlySet<string> = new Set(['BD', 'EG', 'ID', 'IN', 'KE', 'MA', 'NP', 'PH', 'PK', 'TH', 'TR', 'VN']);

/** Expected funds are multiplied by this: a stay costs more in Switzerland than in Vietnam. */
export const COST_FACTOR: Readonly<Record<CostLevel, number>> = { high: 1.25, medium: 1, low: 0.75 };

export function costLevelOf(destination: string): CostLevel {
  if (HIGH_COST.has(destination)) return 'high';
  return LOW_COST.has(destination) ? 'low' : 'medium';
}
