import { isJsonObject } from '../core/json-object.js';
import { ERROR_CODES } from './operations.js';

/**
 * Whether an error body names `code`, as the specification shows no shape for one (part 7): as any
 * string value anywhere in the JSON, or as the last segment of a URI there (an RFC 9457 problem `type`).
 */
export function namesCode(json: unknown, code: string): boolean {
  if (typeof json === 'string') return json === code || (/^[a-z][a-z0-9+.-]*:/i.test(json) && new RegExp(`[/#:]${code}$`).test(json));
  if (Array.isArray(json)) return json.some((item) => namesCode(item, code));
  if (isJsonObject(json)) return Object.values(json).some((value) => namesCode(value, code));
  return false;
}

/** The code the specification states for `status` that the body names, wherever it names it. */
export function statedCodeIn(json: unknown, status: number): string | undefined {
  const stated: readonly string[] = (ERROR_CODES as Partial<Record<string, readonly string[]>>)[String(status)] ?? [];
  return stated.find((code) => namesCode(json, code));
}
