/** Calendar arithmetic on ISO dates (YYYY-MM-DD), in UTC so that results never depend on the machine's time zone. */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `date` is YYYY-MM-DD naming a day that exists (no 31 April, 29 February only in leap years). */
export function isIsoDate(date: string): boolean {
  const match = ISO_DATE.exec(date);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** The same day `months` later (or earlier, if negative), clamped to the month's last day: 2026-08-31 + 6 months = 2027-02-28. */
export function addMonths(date: string, months: number): string {
  const [year, month, day] = partsOf(date);
  const monthIndex = year * 12 + (month - 1) + months;
  const targetYear = Math.floor(monthIndex / 12);
  const targetMonth = (monthIndex % 12) + 1;
  const targetDay = Math.min(day, daysInMonth(targetYear, targetMonth));
  return `${String(targetYear).padStart(4, '0')}-${pad(targetMonth)}-${pad(targetDay)}`;
}

export function yearOf(date: string): number {
  return partsOf(date)[0];
}

function partsOf(date: string): [number, number, number] {
  const match = ISO_DATE.exec(date);
  if (!match) throw new Error(`not an ISO date (YYYY-MM-DD): ${date}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
