import { StringDecoder } from 'node:string_decoder';
import { type Readable, Transform, type TransformCallback, type Writable } from 'node:stream';
import { redactText, unfinishedSecretStart } from './redaction.js';

/** How long the start of a line (a prompt, a row of progress dots) waits for its end before it is shown. */
const PARTIAL_LINE_WAIT_MS = 100;
/** A line longer than this is shown in parts: output without line breaks never piles up. */
const LONGEST_HELD_TEXT = 64 * 1024;

/**
 * Redacts a child process's output as svc redacts its own (redactText): whole lines at a time, so
 * that no secret is cut in two. The start of a line that does not end soon is passed on after a
 * short wait, all but an end that may be the beginning of a secret, which waits for what follows.
 */
class RedactedLines extends Transform {
  private readonly decoder = new StringDecoder('utf8');
  private held = '';
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly secrets: readonly string[]) {
    super({ decodeStrings: true, encoding: 'utf8' });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.held += this.decoder.write(chunk);
    const lineEnd = this.held.lastIndexOf('\n') + 1;
    this.pass(lineEnd);
    if (this.held.length > LONGEST_HELD_TEXT) this.pass(this.held.length);
    else if (this.held && !this.timer) this.timer = setTimeout(() => this.passPartialLine(), PARTIAL_LINE_WAIT_MS);
    done();
  }

  override _flush(done: TransformCallback): void {
    clearTimeout(this.timer);
    this.held += this.decoder.end();
    this.pass(this.held.length);
    done();
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    clearTimeout(this.timer);
    done(error);
  }

  private passPartialLine(): void {
    this.timer = undefined;
    this.pass(unfinishedSecretStart(this.held, this.secrets));
  }

  /** Passes on the first `length` characters held, redacted. */
  private pass(length: number): void {
    if (length === 0) return;
    this.push(redactText(this.held.slice(0, length), this.secrets));
    this.held = this.held.slice(length);
    if (!this.held) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }
}

/** A copy of a child's output under way; `stop()` ends it early, passing on what it holds. */
export interface RedactedCopy {
  done: Promise<void>;
  stop(): void;
}

/**
 * Copies `from` (a child process's stdout or stderr) to `to`, redacted of `secrets` and of every
 * key-shaped token, without losing any of it. `done` resolves once `from` has ended (or the copy
 * was stopped) and everything has been passed to `to`, which is left open.
 */
export function copyRedacted(from: Readable, to: Writable, secrets: readonly string[]): RedactedCopy {
  const lines = new RedactedLines(secrets);
  const done = new Promise<void>((resolve, reject) => {
    lines.once('end', resolve);
    lines.once('error', reject);
    from.once('error', (error) => lines.destroy(error));
  });
  from.pipe(lines).pipe(to, { end: false });
  return {
    done,
    stop() {
      from.unpipe(lines);
      from.destroy();
      if (!lines.writableEnded) lines.end();
    },
  };
}
