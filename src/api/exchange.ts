/**
 * One exchange with the API as svc's client sees it: the request before it leaves and the answer,
 * read whole. svc's own types, not fetch's: a one-shot command then never starts Node's fetch, whose
 * first use costs more than the rest of the command (see test/bench/startup.js).
 */

/** A body sent as it is produced, with its length known before it is sent. */
export interface StreamedBody {
  contentType: string;
  length: number;
  chunks: () => AsyncIterable<Uint8Array>;
}

export interface ApiRequest {
  readonly method: string;
  readonly url: string;
  /** Header names in lower case; a middleware may add to them before the request is sent. */
  readonly headers: Record<string, string>;
  readonly body?: string | StreamedBody | undefined;
}

/** An answer's headers, read as fetch's Headers reads them: by any case of the name, repeated values joined. */
export class AnswerHeaders {
  constructor(private readonly fields: Readonly<Record<string, string | string[] | undefined>>) {}

  get(name: string): string | null {
    const value = this.fields[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  /** Every header, by its lower-case name, repeated values joined. */
  all(): Record<string, string> {
    const all: Record<string, string> = {};
    for (const name of Object.keys(this.fields)) {
      const value = this.get(name);
      if (value !== null) all[name.toLowerCase()] = value;
    }
    return all;
  }
}

export interface ApiResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  /** The URL the request was sent to: svc follows no redirect. */
  readonly url: string;
  readonly headers: AnswerHeaders;
  /** The body, decoded as UTF-8. */
  readonly text: string;
  /** How many times the request was sent for this answer: more than one when svc retried it. */
  readonly attempts?: number;
}

/** Sends one request and reads its answer, or rejects with why no answer came. */
export type Send = (request: ApiRequest) => Promise<ApiResponse>;

/**
 * One concern applied to every exchange: to the request before it is sent (throwing stops it), to
 * its answer (throwing turns it into a failure), or to its failure (returning the error passed on).
 */
export interface Middleware {
  onRequest?(request: ApiRequest): void;
  onResponse?(request: ApiRequest, response: ApiResponse): void;
  onError?(request: ApiRequest, error: unknown): unknown;
}
