/** How long an implementation asks to be left alone, read from the headers of its answer. */

export interface StatedWait {
  ms: number;
  /** The header that said so (the longer wait, when both did). */
  header: 'Retry-After' | 'X-RateLimit-Reset';
}

/**
 * Above this an X-RateLimit-Reset number is a time in epoch seconds (GitHub's form), below it the
 * seconds left in the window (the IETF draft's RateLimit-Reset): 10^9 s is 2001, and 31 years no window.
 */
const EPOCH_SECONDS_FROM = 1e9;
/** An HTTP date (RFC 9110: IMF-fixdate, or the obsolete RFC 850 form), never a bare number Date.parse would guess at. */
const HTTP_DATE = /^[A-Za-z]+, .+ GMT$/;

function dateOf(text: string): number | undefined {
  if (!HTTP_DATE.test(text)) return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : time;
}

/**
 * When the implementation gave its answer by its own clock (its Date header), so that a time it
 * states is read against the clock that set it, whatever the skew between the two machines; the
 * kit's `now` when it sent none. The Date header is rounded down to the second: the wait read from
 * it is never shorter than the one meant.
 */
function answeredAt(headers: Record<string, string>, now: number): number {
  return dateOf(headers.date?.trim() ?? '') ?? now;
}

/** Retry-After (RFC 9110): delay-seconds, or an HTTP date (at once when it has passed). */
function retryAfterMs(value: string | undefined, at: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = dateOf(text);
  return date === undefined ? undefined : Math.max(0, date - at);
}

/**
 * X-RateLimit-Reset, whose form part 8 does not show: seconds left in the window, the window's end
 * in epoch seconds (a fraction allowed in both), or an HTTP date. An end already passed says nothing
 * usable (undefined), nor does any other form.
 */
function resetMs(value: string | undefined, at: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) {
    const number = Number(text);
    if (number < EPOCH_SECONDS_FROM) return number * 1000;
    return number * 1000 > at ? number * 1000 - at : undefined;
  }
  const date = dateOf(text);
  return date !== undefined && date > at ? date - at : undefined;
}

/**
 * How long the answer asks the kit to wait before its next request (Retry-After, X-RateLimit-Reset):
 * the longer of the two, so that neither is cut short; undefined when neither says. Unbounded: the
 * caller bounds it.
 */
export function statedWait(headers: Record<string, string>, now: number): StatedWait | undefined {
  const at = answeredAt(headers, now);
  const retryAfter = retryAfterMs(headers['retry-after'], at);
  const reset = resetMs(headers['x-ratelimit-reset'], at);
  if (retryAfter === undefined && reset === undefined) return undefined;
  return (reset ?? -1) > (retryAfter ?? -1) ? { ms: Math.ceil(reset!), header: 'X-RateLimit-Reset' } : { ms: retryAfter!, header: 'Retry-After' };
}

/** The Retry-After alone, in ms: the sign that a 502, 503 or 504 is transient. */
export function retryAfter(headers: Record<string, string>, now: number): number | undefined {
  return retryAfterMs(headers['retry-after'], answeredAt(headers, now));
}
