/**
 * What a person typed, made into what they meant where the meaning is certain: surrounding spaces
 * go, and a country or currency code in the wrong case is the code (`fr` is FR). Anything else is
 * left as typed, for the rules and the service to judge.
 */
export function trimmed(text: string | undefined): string | undefined {
  return text?.trim();
}

export function countryCode(text: string | undefined): string | undefined {
  const value = trimmed(text);
  return value !== undefined && /^[a-z]{2}$/i.test(value) ? value.toUpperCase() : value;
}

export function currencyCode(text: string | undefined): string | undefined {
  const value = trimmed(text);
  return value !== undefined && /^[a-z]{3}$/i.test(value) ? value.toUpperCase() : value;
}
