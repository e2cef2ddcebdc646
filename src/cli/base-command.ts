import { Command, Flags, type Interfaces } from '@oclif/core';
import type { Network } from '../api/network.js';
import type { TrustOptions } from '../api/trust.js';
import type { Connection } from '../config/connection.js';
import { environmentSecrets } from '../config/credentials.js';
import { type Paths, pathsOf } from '../config/paths.js';
import { currentProfileName, readConfig } from '../config/config-file.js';
import { postgresSecrets } from '../core/postgres-url.js';
import { secretOnCommandLine } from '../flags/secret.js';
import { redactText } from '../core/redaction.js';
import { asSvcError, type MadeResource, usageError, writeError } from './error-output.js';
import { deprecationWarning } from './deprecated-json.js';
import { type Clock, systemClock } from '../core/clock.js';
import { ExitCode, type ExitCodeValue } from '../core/errors.js';
import { type TimeView, timeView } from '../ui/time.js';
import { type Io, type Output, processIo } from '../ui/io.js';
import { jsonLine } from '../ui/json-lines.js';
import { terminalJson } from '../ui/terminal-text.js';
import { inquirerPrompter, type Prompter } from '../ui/prompter.js';
import { fittedText, hangingLine } from '../ui/table.js';

// An ES module import of node:util reads every export, 1.4 ms of each call: it is taken as CommonJS.
const { format, inspect } = process.getBuiltinModule('node:util');

/** oclif's output of parsing flags or arguments: values by name. */
type Flagged = Record<string, unknown>;

/**
 * What every svc command shares: `--json` (the result of run() alone on stdout), its streams and
 * prompter, and one place that turns errors into a redacted message, a hint and a documented exit
 * code. It has no other flag: the contract kit's commands, whose flags are exactly those the kit
 * documents, extend it; every other command extends BaseCommand.
 */
export abstract class SvcCommand<Result, Line = never> extends Command {
  static override enableJsonFlag = true;

  /**
   * How this run ends: a command sets it for a verdict it prints without failing (a check that did not
   * pass, a delivery refused), an error and a Ctrl-C set it here; only the base class gives it to the process.
   */
  exitCode: ExitCodeValue = ExitCode.ok;

  /** What this run made (a report, a key): an error after it names it, so that a script can find it again. */
  protected made: MadeResource | undefined;

  /** Secrets this run knows of (the environment's from the start); they are redacted from anything it prints. */
  protected readonly secrets: string[] = [];

  /** The streams of this run: the process's own, or an in-process test's. */
  io: Io = processIo();

  /** The time of this run: the system's, or an in-process test's. */
  clock: Clock = systemClock;

  /** Where this run keeps its files: under the XDG directories of its environment. */
  protected get paths(): Paths {
    return pathsOf(this.io.env);
  }

  private givenPrompter: Prompter | undefined;

  /** Asks a person (inquirer on the run's `io`, whichever it is by then); an in-process test answers with a stub. */
  get prompter(): Prompter {
    return this.givenPrompter ?? inquirerPrompter(this.io);
  }

  set prompter(prompter: Prompter) {
    this.givenPrompter = prompter;
  }

  /** What `--json` prints: the compiler holds run() to the command's JsonResult, the type its schema is generated from. */
  public abstract override run(): Promise<Result>;

  /** One line of `--json` output, of the command's JsonLine type (a command that reports as it goes). */
  protected formatJsonLine(line: Line): string {
    return jsonLine(line);
  }

  protected override async init(): Promise<void> {
    await super.init();
    this.secrets.push(...environmentSecrets(this.io.env));
    // A script reading --json is told of the fields it may still read that are going (docs/json-output.md).
    const deprecated = this.jsonEnabled() ? deprecationWarning(this.commandWords) : undefined;
    if (deprecated) this.warning(deprecated);
  }

  /**
   * The network of this run: the proxies of its environment, and the trust and client certificate
   * it was given. From then on, the proxies' passwords are redacted from everything it prints.
   */
  protected async network(trust: Omit<TrustOptions, 'env'> = {}): Promise<Network> {
    const { networkOf } = await import('../api/network.js');
    const network = networkOf(this.io.env, trust);
    this.secrets.push(...network.proxies.secrets);
    return network;
  }

  /** The network of a connection this run resolved: whom its TLS trusts and what it presents are the connection's, every setting of it. */
  protected async connectionNetwork(connection: Connection): Promise<Network> {
    const { connectionTrust } = await import('../config/connection.js');
    return this.network(connectionTrust(connection));
  }

  /** The command's words as a person types them (`reports create`), not oclif's id (`reports:create`). */
  protected get commandWords(): string {
    return this.id?.replaceAll(':', ' ') ?? '';
  }

  /** Parses as oclif does; what it refuses is a usage error of svc's own shape. */
  protected override async parse<F extends Flagged, B extends Flagged, A extends Flagged>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    try {
      return await super.parse(options, argv);
    } catch (error) {
      throw usageError(error as Error, this.commandWords);
    }
  }

  public override log(message = '', ...args: unknown[]): void {
    if (this.jsonEnabled()) return;
    this.io.stdout.write(`${fittedText(format(typeof message === 'string' ? message : inspect(message), ...args), this.io.stdout)}\n`);
  }

  public override logJson(json: unknown): void {
    this.io.stdout.write(`${terminalJson(json, 2)}\n`);
  }

  private interruption: { controller: AbortController; handler: (signal: NodeJS.Signals) => void; by?: NodeJS.Signals } | undefined;

  /**
   * The one interruption of this run: aborted by the first Ctrl-C or SIGTERM, after `onInterrupt`
   * (which says what happens now); a second one exits at once (130). Until a command asks for it,
   * Ctrl-C ends the process as it always does. A run that Ctrl-C ended exits 130 as the README's
   * table says; one a supervisor stopped with SIGTERM exits 0, a clean stop.
   */
  protected interruptSignal(onInterrupt?: () => void): AbortSignal {
    if (!this.interruption) {
      const controller = new AbortController();
      const handler = (signal: NodeJS.Signals) => {
        if (controller.signal.aborted) process.exit(ExitCode.interrupted);
        this.interruption!.by = signal;
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
    if (this.interruption) this.interruption.by ??= 'SIGINT';
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
      if (!error && this.interruption.by === 'SIGINT') this.exitCode = ExitCode.interrupted;
    }
    if (this.exitCode !== ExitCode.ok) process.exitCode = this.exitCode;
    return super.finally(error);
  }

  /** A line for people on stderr, in every output mode (oclif's logToStderr is silent under --json). */
  protected note(line: string): void {
    const text = redactText(line, this.secrets);
    this.io.stderr.write(`${fittedText(text, this.io.stderr)}\n`);
  }

  protected warning(message: string): void {
    this.note(hangingLine('Warning: ', redactText(message, this.secrets), this.io.stderr));
  }

  protected override async catch(error: Error): Promise<unknown> {
    const failure = asSvcError(error);
    this.exitCode = failure.exitCode;
    writeError(failure, { logJson: this.jsonEnabled() ? (json) => this.logJson(json) : undefined, stderr: this.io.stderr }, this.secrets, this.made);
    return this.exit(failure.exitCode);
  }
}

/** A command of the operator CLI: `--profile` and `--utc` besides what every command shares. */
export abstract class BaseCommand<Result, Line = never> extends SvcCommand<Result, Line> {
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

  /** How times are shown on `out`: exact with --utc or off a terminal, else relative to this run's clock. */
  protected timeView(utc: boolean, out: Output = this.io.stdout): TimeView {
    return timeView(utc, out, this.clock.now());
  }

  /**
   * Where a store is (`svc webhooks`' events, `svc keys rotate`'s journals): the flag, else the variable,
   * else the profile's setting; undefined when none names it. A connection string is redacted from
   * everything this run prints, and a password in the flag is warned of.
   */
  protected async storeSetting(
    flag: { name: string; value: string | undefined },
    variable: 'SVC_WEBHOOK_STORE' | 'SVC_ROTATION_STORE',
    setting: 'webhook_store' | 'rotation_store',
    profile: string | undefined,
  ): Promise<{ value: string; source: string } | undefined> {
    let found: { value: string; source: string } | undefined;
    if (flag.value !== undefined) {
      found = { value: flag.value, source: flag.name };
      if (postgresSecrets(flag.value).length > 1)
        this.warning(secretOnCommandLine(`a password given in ${flag.name}`, `${variable} or the profile (\`svc config set ${setting}\`)`));
    } else if (this.io.env[variable]) {
      found = { value: this.io.env[variable], source: variable };
    } else {
      const config = await readConfig(this.paths.configFile);
      const name = currentProfileName(config, profile, this.io.env);
      const value = config.profiles[name]?.[setting];
      if (value !== undefined) found = { value, source: `profile "${name}"` };
    }
    if (found) this.secrets.push(...postgresSecrets(found.value));
    return found;
  }
}
