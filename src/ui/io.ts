import type { Readable } from 'node:stream';

/**
 * A stream svc writes to, and what text for people is laid out for on it: a terminal or not, its
 * width, whether it shows colour. Everything that renders takes one, never the bare stream.
 */
export class Output {
  constructor(
    readonly stream: NodeJS.WriteStream,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Whether a terminal is at the other end. */
  get isTTY(): boolean {
    return Boolean(this.stream.isTTY);
  }

  /** The terminal's width now (it may be resized), 80 when it does not say. */
  get columns(): number {
    return this.stream.columns || 80;
  }

  /** Colour is shown on a terminal, unless NO_COLOR is set or the terminal is dumb. */
  get color(): boolean {
    return this.isTTY && !this.env.NO_COLOR && this.env.TERM !== 'dumb';
  }

  write(text: string): void {
    this.stream.write(text);
  }
}

/**
 * What a command talks through: stdin, its two outputs, and the environment that says how to use
 * them. A command's `io` is the process's own; an in-process test gives one of its own streams.
 */
export class Io {
  readonly stdout: Output;
  readonly stderr: Output;

  constructor(
    readonly stdin: Readable & { isTTY?: boolean },
    stdout: NodeJS.WriteStream,
    stderr: NodeJS.WriteStream,
    readonly env: NodeJS.ProcessEnv,
  ) {
    this.stdout = new Output(stdout, env);
    this.stderr = new Output(stderr, env);
  }

  /** Whether a person can be asked: stdin is a terminal, and this is not CI. */
  get canPrompt(): boolean {
    return Boolean(this.stdin.isTTY) && this.env.CI !== 'true';
  }

  /** Where a live display is wanted: both outputs a terminal (so it is a person watching), not CI, not a dumb terminal. */
  get showsLiveProgress(): boolean {
    return this.stdout.isTTY && this.stderr.isTTY && this.env.CI !== 'true' && this.env.TERM !== 'dumb';
  }
}

export function processIo(): Io {
  return new Io(process.stdin, process.stdout, process.stderr, process.env);
}
