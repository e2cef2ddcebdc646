import type { DocumentType } from '../api/types.js';

/** `a`, `a and b`, `a, b and c`. */
export function listed(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** `bank_statement` → `bank statement`. */
export function documentLabel(type: DocumentType): string {
  return type.replaceAll('_', ' ');
}

/** Whole amounts with thousands separators, the same on every machine: 12,500. */
export function amount(value: number): string {
  return new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }).format(value);
}
