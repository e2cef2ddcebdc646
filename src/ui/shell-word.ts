/** A word as a POSIX shell reads it back: as it is where it holds nothing the shell would act on, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w/.:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
