/**
 * Help text written as it reads in the source: lines of a paragraph are joined with a space, and
 * a blank line starts a new paragraph (one line break in the help, as oclif shows it).
 */
export function helpText(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = strings.reduce((joined, part, index) => `${joined}${part}${index < values.length ? String(values[index]) : ''}`, '');
  return text
    .trim()
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s*\n\s*/g, ' '))
    .join('\n');
}
