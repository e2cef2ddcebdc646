/** Where the text ends, or stops being JSON: what was read before it stands. */
class Stop extends Error {}

const WHITESPACE = ' \t\n\r';

function skipWhitespace(text: string, at: number): number {
  while (at < text.length && WHITESPACE.includes(text[at]!)) at++;
  return at;
}

/** The index after the string whose opening quote is at `at`. */
function stringEnd(text: string, at: number): number {
  for (let index = at + 1; index < text.length; index++) {
    if (text[index] === '\\') index++;
    else if (text[index] === '"') return index + 1;
  }
  throw new Stop();
}

function stringValue(token: string): string {
  try {
    return JSON.parse(token) as string;
  } catch {
    throw new Stop();
  }
}

/**
 * The index after the value at `at`, passed over unread: an array or object by counting its
 * brackets, so that however deep it nests it costs one look at each character and no memory.
 */
function skipValue(text: string, at: number): number {
  if (text[at] === '"') return stringEnd(text, at);
  if (text[at] !== '{' && text[at] !== '[') {
    let end = at;
    while (end < text.length && !`,}]${WHITESPACE}`.includes(text[end]!)) end++;
    if (end === at || end === text.length) throw new Stop();
    return end;
  }
  let nesting = 0;
  for (let index = at; index < text.length; index++) {
    const char = text[index];
    if (char === '"') index = stringEnd(text, index) - 1;
    else if (char === '{' || char === '[') nesting++;
    else if ((char === '}' || char === ']') && --nesting === 0) return index + 1;
  }
  throw new Stop();
}

/** Reads the object whose `{` is at `at` into `into`, `depth` levels of it; the index after it. */
function readObject(text: string, at: number, into: Record<string, unknown>, depth: number): number {
  let index = skipWhitespace(text, at + 1);
  if (text[index] === '}') return index + 1;
  for (;;) {
    if (text[index] !== '"') throw new Stop();
    const keyEnd = stringEnd(text, index);
    const key = stringValue(text.slice(index, keyEnd));
    index = skipWhitespace(text, keyEnd);
    if (text[index] !== ':') throw new Stop();
    index = skipWhitespace(text, index + 1);
    if (text[index] === '"') {
      const end = stringEnd(text, index);
      into[key] = stringValue(text.slice(index, end));
      index = end;
    } else if (text[index] === '{' && depth > 1) {
      const member = Object.create(null) as Record<string, unknown>;
      into[key] = member;
      index = readObject(text, index, member, depth - 1);
    } else {
      index = skipValue(text, index);
    }
    index = skipWhitespace(text, index);
    if (text[index] === '}') return index + 1;
    if (text[index] !== ',') throw new Stop();
    index = skipWhitespace(text, index + 1);
  }
}

/**
 * What the start of a JSON document says at its top, for reading claims of a body that may be
 * hostile without parsing it: the string members of its top-level object, and of the objects in it
 * down to `depth` levels (the top one is the first). Everything else (numbers, arrays, deeper
 * objects) is passed over unread. Reading stops where `text` ends or stops being JSON, keeping what
 * came before, so a prefix of a document gives what that prefix holds. Undefined unless the text
 * starts with an object.
 */
export function prefixObject(text: string, depth: number): Record<string, unknown> | undefined {
  const start = skipWhitespace(text, 0);
  if (text[start] !== '{') return undefined;
  // No prototype: a "__proto__" member is a member, as JSON.parse makes it.
  const top = Object.create(null) as Record<string, unknown>;
  try {
    readObject(text, start, top, depth);
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
  }
  return top;
}
