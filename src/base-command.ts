import { format, inspect } from 'node:util';
import { Command, Flags } from '@oclif/core';
import { redactText } from './config/keys.js';
import { ExitCode, SvcError } from './errors.js';
import { type Io, processIo } from './ui/io.js';
import { inquirerPrompter, type Prompter } from './ui/prompter.js';
import { hangingLine } from './ui/table.js';
import { terminalText } from './ui/terminal-text.js';

/**
 * What every svc command shares: `--json` (the result of run() alone on stdout), `--profile`,
 * and one place that turns errors into a redacted message, a hint and a documented exit code.
 */
export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true;

  static override baseFlags = {
    profile: Flags.string({
      description: 'Profile of the config file to use (default: SVC_PROFILE, then the current profile)',
      helpGroup: 'GLOBAL',
    }),
    utc: Flags.boolean({
      description: 'Show times exactly, in UTC (ISO 8601), instead of relative and local; piped output and --json always do',
      helpGroup: 'GLOBAL',
    }),
  };

  /** Secrets this run knows of; they are redacted from anything it prints. */
  protected readonly secrets: string[] = [];

  /** The streams of this run: the process's own, or an in-process test's. */
  io: Io = processIo();

  /** Asks a person (inquirer on `io`'s terminal); an in-process test answers with a stub. */
  prompter: Prompter = inquirerPrompter(this.io);

  public override log(message = '', ...args: unknown[]): void {
    if (this.jsonEnabled()) return;
    this.io.stdout.write(`${format(typeof message === 'string' ? message : inspect(message), ...args)}\n`);
  }

  public override logJson(json: unknown): void {
    this.io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  }

  private interruption: { controller: AbortController; handler: () => void } | undefined;

  /**
   * The one interruption of this run: aborted by the first Ctrl-C or SIGTERM, after `onInterrupt`
   * (which says what happens now); a second one exits at once (130). Until a command asks for it,
   * Ctrl-C ends the process as it always does.
   */
  protected interruptSignal(onInterrupt?: () => void): AbortSignal {
    if (!this.interruption) {
      const controller = new AbortController();
      const handler = () => {
        if (controller.signal.aborted) process.exit(ExitCode.interrupted);
        onInterrupt?.();
        controller.abort();
      };
      process.on('SIGINT', handler);
      process.on('SIGTERM', handler);
      this.interruption = { controller, handler };
    }
    return this.interruption.controller.signal;
  }

  /** Interrupts the run as a Ctrl-C would (a prompt the person left with Ctrl-C). */
  protected interrupt(): void {
    this.interruptSignal();
    this.interruption?.controller.abort();
  }

  /** Resolves at the first Ctrl-C or SIGTERM: the life of a command that serves until it is stopped. */
  protected untilInterrupted(onInterrupt?: () => void): Promise<void> {
    const signal = this.interruptSignal(onInterrupt);
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  }

  protected override async finally(error: Error | undefined): Promise<unknown> {
    if (this.interruption) {
      process.off('SIGINT', this.interruption.handler);
      process.off('SIGTERM', this.interruption.handler);
    }
    return super.finally(error);
  }

  /** A line for people on stderr, in every output mode (oclif's logToStderr is silent under --json). */
  protected note(line: string): void {
    const text = redactText(line, this.secrets);
    this.io.stderr.write(
      `${text
        .split('\n')
        .map((part) => hangingLine('', part, this.io.stderr))
        .join('\n')}\n`,
    );
  }

  protected warning(message: string): void {
    this.note(hangingLine('Warning: ', message, this.io.stderr));
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    error.message = redactText(error.message, this.secrets);
    if (!(error instanceof SvcError)) return super.catch(error);
    process.exitCode = error.exitCode;
    if (this.jsonEnabled()) this.logJson({ error: error.toJSON() });
    // Messages carry what an API or a sender said; --json has them exact, people see them escaped.
    this.note(hangingLine('Error: ', terminalText(error.message), this.io.stderr));
    if (error.hint) this.note(hangingLine('  → ', terminalText(error.hint), this.io.stderr));
    return this.exit(error.exitCode);
  }
}
