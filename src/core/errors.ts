/**
 * Exit codes, one per class of failure, so scripts can branch on them.
 * Documented in the README ("Exit codes"); keep the two in step.
 */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 3,
  permission: 4,
  notFound: 5,
  invalidInput: 6,
  rateLimited: 7,
  network: 8,
  server: 9,
  config: 10,
  reportFailed: 11,
  timedOut: 12,
  drainTimedOut: 13,
  rotationStepFailed: 14,
  refused: 15,
  verificationFailed: 16,
  nonConformant: 17,
  inconclusive: 18,
  notOffered: 19,
  interrupted: 130,
} as const;

export type ErrorKind = Exclude<keyof typeof ExitCode, 'ok'>;

/** One of the exit codes. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** Every error svc reports on purpose: a code, a one-line message and a hint that says what to do. */
export class SvcError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly hint: string | undefined;

  constructor(kind: ErrorKind, code: string, message: string, hint?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SvcError';
    this.kind = kind;
    this.code = code;
    this.hint = hint;
  }

  get exitCode(): ExitCodeValue {
    return ExitCode[this.kind];
  }

  toJSON(): Record<string, unknown> {
    return { kind: this.kind, code: this.code, message: this.message, hint: this.hint, exit_code: this.exitCode };
  }
}

/** An answer of the API that is not a success, or a request that never got one. */
export class ApiError extends SvcError {
  readonly status: number | undefined;
  readonly method: string;
  readonly url: string;
  readonly retryAfterSeconds: number | undefined;
  /** The request field the service named as wrong, when it named one. */
  readonly field: string | undefined;

  constructor(init: {
    kind: ErrorKind;
    code: string;
    message: string;
    hint?: string;
    status?: number;
    method: string;
    url: string;
    retryAfterSeconds?: number;
    field?: string | undefined;
    cause?: unknown;
  }) {
    super(init.kind, init.code, init.message, init.hint, { cause: init.cause });
    this.name = 'ApiError';
    this.status = init.status;
    this.method = init.method;
    this.url = init.url;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.field = init.field;
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      status: this.status,
      request: `${this.method} ${this.url}`,
      retry_after_seconds: this.retryAfterSeconds,
    };
  }
}

export class ConfigError extends SvcError {
  constructor(code: string, message: string, hint?: string) {
    super('config', code, message, hint);
    this.name = 'ConfigError';
  }
}
