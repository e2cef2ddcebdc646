import { resolve } from 'node:path';
import { Args, Flags, type Interfaces } from '@oclif/core';
import { AdminCommand } from '../../cli/admin-command.js';
import type { ConnectionFlagValues } from '../../cli/api-command.js';
import type { ApiClient } from '../../api/client.js';
import { assertStated, STATED } from '../../spec/stated.js';
import type { Connection } from '../../config/connection.js';
import { assertSecretFileWritable, readSecretFile } from '../../core/secret-file.js';
import { SvcError } from '../../core/errors.js';
import { durationArgument, durationFlag } from '../../flags/duration.js';
import { parseRotationStore } from '../../config/rotation-store.js';
import { assertSameBaseUrl, type DrainEvidence, findRotation, keyLabel, type RotationJournal, type RotationRecord } from '../../keys/journal.js';
import { openRotationJournal } from '../../keys/rotation-store.js';
import { rotationStoreFlag } from '../../flags/rotation-store.js';
import { abortRotation } from '../../keys/rotation-abort.js';
import type { RotationQuestion } from '../../keys/rotation-events.js';
import { applyChanges, assertDrainEvidence, assertResumable, describeSteps, drainEvidence, findOrPlanRotation } from '../../keys/rotation-plan.js';
import type { ResumeCommand, RotationContext } from '../../keys/rotation-context.js';
import { runRotation } from '../../keys/rotation.js';
import { formatDuration } from '../../core/duration.js';
import { helpText } from '../../cli/help-text.js';
import { readStdin } from '../../ui/stdin.js';
import { writeJsonLine } from '../../ui/json-lines.js';
import { humanView, jsonLinesView, type RotationJsonLine, type RotationView } from '../../ui/rotation.js';
import { terminalText } from '../../ui/terminal-text.js';
import { shellWord } from '../../ui/shell-word.js';

/** What `--json` writes: one line per event of the rotation. */
export type JsonLine = RotationJsonLine;

/** What `--dry-run --json` writes: the plan. */
export interface JsonResult {
  dry_run: true;
  rotation: string | null;
  old_key: RotationRecord['old_key'];
  new_key_file: string | null;
  deploy_cmd: string | null;
  quiet_period_ms: number;
  steps: ReturnType<typeof describeSteps>;
}

const DEFAULT_QUIET_PERIOD_MS = 15 * 60_000;
const DEFAULT_TIMEOUT_MS = 60 * 60_000;
const DEFAULT_POLL_INTERVAL_MS = 30_000;
/** Seconds to wait for each answer: `--timeout` here bounds the drain instead. */
const ANSWER_TIMEOUT_S = 30;

type RotateFlags = Interfaces.InferredFlags<typeof KeysRotate.flags & typeof KeysRotate.baseFlags>;

/** The key a new rotation is for: named, and of the stated form (it names the rotation's lock). */
function rotatedKeyId(id: string | undefined): string {
  if (!id) {
    throw new SvcError(
      'usage',
      'missing_key_id',
      'name the key to rotate',
      'svc keys rotate key_… --new-key-file …; `svc keys list` or the dashboard shows the keys, --resume continues a rotation',
    );
  }
  assertStated([['id', id, STATED.keyId]]);
  return id;
}

/**
 * The command that continues `record` after this run stops: --resume, and the flags given to this run
 * that the journal does not keep (where to connect, the old key's file, the waits, what the operator
 * allowed). Never a secret: the rotation store's connection string (svc holds it secret whole) and
 * the old key given as --api-key are named in words instead.
 */
function resumeCommand(record: RotationRecord, flags: RotateFlags): ResumeCommand {
  const words = ['svc', 'keys', 'rotate', '--resume', record.id];
  const carry = (flag: string, value: string | undefined) => {
    if (value !== undefined) words.push(`--${flag}`, shellWord(value));
  };
  carry('profile', flags.profile);
  for (const flag of ['base-url', 'ca-cert', 'client-cert', 'client-key'] as const) carry(flag, flags[flag]);
  if (flags['old-key-file'] !== undefined) carry('old-key-file', resolve(flags['old-key-file']));
  for (const flag of ['timeout', 'poll-interval'] as const) carry(flag, flags[flag] === undefined ? undefined : durationArgument(flags[flag]));
  for (const flag of ['ca-cert-only', 'allow-unverified-workspace', 'allow-scope-change'] as const) if (flags[flag]) words.push(`--${flag}`);
  const needs = [
    flags['rotation-store'] !== undefined && 'and the same rotation store, in SVC_ROTATION_STORE to keep it off the command line',
    flags['api-key'] !== undefined &&
      flags['old-key-file'] === undefined &&
      "and the old key's secret, in --old-key-file FILE or --api-key: a request with it confirms the revocation",
  ].filter((need) => need !== false);
  return { command: words.join(' '), needs: needs.length ? needs.join('; ') : undefined };
}

export default class KeysRotate extends AdminCommand<JsonResult | undefined, JsonLine> {
  static override summary = 'Replace a key without downtime: new key (made or given), deploy, drain, revoke';
  static override description = helpText`
    Spec part 5, rule 7, as a resumable state machine. (1) create a key with the old key's scope, or take a key
    made in the dashboard (--new-key-file holding it, or --new-key-file - on stdin) after checking it: the old key's
    environment, a read request, the old key's workspace and scope (what the service does not show needs
    --allow-unverified-workspace or --allow-scope-change, or a person's yes at a terminal); (2) save a created
    key's secret to --new-key-file (0600, atomically) before anything else, or keep it in memory for the deploy
    command only; (3) run --deploy-cmd with the secret in SVC_NEW_API_KEY and on stdin (never in argv), or have a
    person confirm the deploy; (4) make a read request with the new key; (5) drain, on the evidence there is: where
    the service shows keys' last use, wait until the old key has been silent for --quiet-period and the new key has
    been used since step 4, by the API's own clock; else --drain-check-cmd until it exits 0, else a person at a
    terminal who looks at the dashboard, else --drain-wait after the deploy; (6) revoke the old key with DELETE
    /v1/keys/{id}; (7) check that a request with the old key gets 401 invalid_key (its secret: --old-key-file or
    the profile's API key).

    Whether the service has a key API is found out by reading the old key, which creates nothing. Without one, svc
    needs the old key's secret (--old-key-file, or the profile's API key) to check the new key's environment.

    Each step is recorded in $XDG_STATE_HOME/svc/rotations/<rotation-id>.json (0600; never a secret) before the
    next begins, or, with a rotation store (--rotation-store, SVC_ROTATION_STORE or the profile's rotation_store), in
    a PostgreSQL database every runner shares, which holds the lock of each rotated key too. After a crash, a Ctrl-C
    or a failure, --resume (or running the same command again) continues from there without repeating an effect: no
    second key, no second deploy without asking. A run that finds no journal looks among the keys the service lists
    for a key that a rotation of the same key made (on another runner, say), and takes it up when --new-key-file
    holds its secret, or stops and names it (exit 15).

    With --json, stdout carries one JSON object per line: started, step_done (the drain's with "evidence":
    last_use, check_command, person or wait), drain_progress (each poll), drain_check, new_key_replaced, notice,
    completed or aborted; a failure ends with {"error": …}.

    Exit codes: 13 when --timeout passes before the drain is done (nothing revoked; --resume waits again), 14 when
    a step fails (verification, deploy command, confirmation), 15 when a safety rail refuses (another run holds the
    key's lock, a key an earlier rotation made is active and its secret was not given), 8 when the rotation store's
    lock is lost mid-run, 130 on Ctrl-C. Here --timeout bounds the drain; each answer of the API is waited for
    ${ANSWER_TIMEOUT_S} s.
  `;

  static override examples = [
    '<%= config.bin %> keys rotate key_123 --new-key-file ./new.key',
    {
      description: 'Rotate from a script: deploy the new key with a command, wait 15 quiet minutes',
      command: `<%= config.bin %> keys rotate key_123 --new-key-file /run/secrets/svc.key --deploy-cmd './deploy-key.sh' --quiet-period 15m --timeout 2h --yes --json`,
    },
    '<%= config.bin %> keys rotate --resume',
    '<%= config.bin %> keys rotate --abort rot_0123456789abcdef0123',
    '<%= config.bin %> keys rotate key_123 --new-key-file ./new.key --dry-run',
    {
      description: 'Rotate to a key made in the dashboard, the drain decided by a check of your own',
      command: `<%= config.bin %> keys rotate key_123 --new-key-file ./dashboard.key --new-key-id key_456 --old-key-file ./app.key --deploy-cmd './deploy-key.sh' --drain-check-cmd './no-traffic.sh key_123' --yes --json`,
    },
  ];

  static override mutating = true;

  static override args = {
    id: Args.string({
      description: 'Key to rotate (key_…); with --resume or --abort, a rotation id (rot_…) or the rotated key id (default: the one unfinished rotation)',
      ignoreStdin: true,
    }),
  };

  static override flags = {
    'new-key-file': Flags.string({
      description:
        "File for the new secret, written 0600 and atomically before anything else happens; makes every step resumable. A file that already holds a key other than the old one gives svc that key (made in the dashboard); '-' reads it from stdin",
    }),
    'new-key-id': Flags.string({ description: 'Id of the key given in --new-key-file (key_…), where the dashboard shows it' }),
    'old-key-file': Flags.string({
      description:
        "File holding the old key's secret (0600), to check the new key's environment and workspace and to confirm the revocation (default: the profile's API key)",
    }),
    'deploy-cmd': Flags.string({
      description:
        'Shell command that deploys the new key, given to it in SVC_NEW_API_KEY and on stdin (its id in SVC_NEW_KEY_ID) and no other SVC_* variable; its output goes to stderr, keys redacted. Without it a person confirms the deploy',
    }),
    'quiet-period': durationFlag({
      description: `How long the old key must have been silent before it is revoked, e.g. 90s, 15m, 1h (default ${formatDuration(DEFAULT_QUIET_PERIOD_MS)})`,
    }),
    timeout: durationFlag({
      description: `How long to wait for the drain before exit code 13, nothing revoked (default ${formatDuration(DEFAULT_TIMEOUT_MS)})`,
    }),
    'drain-check-cmd': Flags.string({
      description:
        'Where the service shows no last use: a shell command that exits 0 when the old key has no traffic (your logs or metrics); run every --poll-interval up to --timeout, with SVC_OLD_KEY_ID and SVC_NEW_KEY_ID and no secret',
    }),
    'drain-wait': durationFlag({
      description:
        'Where no other evidence of the drain is at hand (no last use, no --drain-check-cmd, no person at a terminal): how long to wait after the deploy',
    }),
    'poll-interval': durationFlag({
      description: `Time between two looks at the keys' last use during the drain (default ${formatDuration(DEFAULT_POLL_INTERVAL_MS)})`,
    }),
    resume: Flags.boolean({ description: 'Continue an unfinished rotation from its last recorded step', exclusive: ['abort'] }),
    abort: Flags.boolean({
      description: 'End an unfinished rotation: revoke the new key if it was never deployed; the old key stays active',
      exclusive: ['resume', 'dry-run'],
    }),
    force: Flags.boolean({ description: 'Revoke the old key although it still shows traffic inside the quiet period (asks again on a terminal)' }),
    'allow-unverified-workspace': Flags.boolean({
      description:
        "Deploy a given key (--new-key-file) although svc could not show it is of the old key's workspace (no key API that shows it, no reports to compare)",
    }),
    'allow-scope-change': Flags.boolean({
      description:
        "Deploy a new key whose scope (read-only, IP list) differs from the old key's, or may: the service shows no scope to compare, or to make the new key with",
    }),
    'rotation-store': rotationStoreFlag,
    'dry-run': Flags.boolean({ description: 'Print the plan, keys redacted, and change nothing' }),
    yes: Flags.boolean({
      char: 'y',
      description:
        'No prompts: --new-key-file is the deploy when there is no --deploy-cmd, an interrupted deploy command runs again, --force is not asked again',
    }),
  };

  private shownBy: RotationView | undefined;

  /** Where rotations are recorded and locked: the shared store, or the state directory of the command's environment. */
  private journal!: RotationJournal;

  /** How the rotation is shown: JSON lines on stdout with --json, else progress for people on stderr. */
  private get view(): RotationView {
    this.shownBy ??= this.jsonEnabled() ? jsonLinesView(this.io.stdout) : humanView(this.io.stderr);
    return this.shownBy;
  }

  /** Every line of stdout is one JSON object, the final error included. */
  public override logJson(json: unknown): void {
    this.view.pause();
    writeJsonLine(this.io.stdout, json);
  }

  public async run(): Promise<JsonResult | undefined> {
    const { args, flags } = await this.parse(KeysRotate);
    const connectionFlags = { ...flags, timeout: ANSWER_TIMEOUT_S };
    const { client: admin, connection } = await this.connectAdmin(connectionFlags);
    const baseUrl = connection.baseUrl.href;
    const store = await this.storeSetting({ name: '--rotation-store', value: flags['rotation-store'] }, 'SVC_ROTATION_STORE', 'rotation_store', flags.profile);
    this.journal = await openRotationJournal(store && parseRotationStore(store.value, store.source), this.paths.stateDir);
    try {
      const found = flags.resume || flags.abort ? await findRotation(this.journal, args.id) : undefined;
      const keyId = found?.old_key.id ?? rotatedKeyId(args.id);
      if (flags['new-key-id'] !== undefined) assertStated([['--new-key-id', flags['new-key-id'], STATED.keyId]]);
      // Taken before anything is planned: two runs for one key never both go on.
      const lock = await this.journal.lock(keyId, baseUrl);
      try {
        if (found) await this.journal.assertUnchanged(found);
        const oldKeySecret = await this.oldKeySecret(flags, connection);
        const givenSecret = flags['new-key-file'] === '-' ? await this.newKeyFromStdin() : undefined;
        const record = found ?? (await this.rotationOf(keyId, flags, { admin, connection, oldKeySecret, givenSecret }));
        // A rotation taken up from its journal meets the rails of a fresh run again, against this base URL only.
        if (Object.keys(record.steps).length > 0 || Object.keys(record.attempts).length > 0) {
          assertSameBaseUrl(record, baseUrl);
          await assertResumable(record, admin, connection.adminKey!.value);
        }
        if (flags.abort) return await this.abort(record, admin, baseUrl);
        return await this.continueRotation(record, flags, { admin, connection, connectionFlags, oldKeySecret, givenSecret, lockLost: lock.lost });
      } finally {
        await lock.release();
      }
    } finally {
      await this.journal.close();
    }
  }

  private async continueRotation(
    record: RotationRecord,
    flags: RotateFlags,
    session: {
      admin: ApiClient;
      connection: Connection;
      connectionFlags: ConnectionFlagValues;
      oldKeySecret: string | undefined;
      givenSecret: string | undefined;
      /** Aborted when the rotation's lock is lost: the run stops at once. */
      lockLost: AbortSignal;
    },
  ): Promise<JsonResult | undefined> {
    const { admin, connection, connectionFlags } = session;
    if (this.alreadyOver(record)) return undefined;
    assertSameBaseUrl(record, connection.baseUrl.href);
    applyChanges(record, {
      newKeyFile: flags['new-key-file'] === undefined || flags['new-key-file'] === '-' ? flags['new-key-file'] : resolve(flags['new-key-file']),
      deployCmd: flags['deploy-cmd'],
      quietPeriodMs: flags['quiet-period'],
      drainCheckCmd: flags['drain-check-cmd'],
      drainWaitMs: flags['drain-wait'],
    });
    const personCanConfirm = !flags.yes && this.io.canPrompt;
    if (flags['dry-run']) return this.showPlan(record, drainEvidence(record, personCanConfirm));
    const evidence = record.steps.drain ? (record.steps.drain.evidence ?? 'last_use') : assertDrainEvidence(record, personCanConfirm);
    if (!record.steps.deploy && !record.deploy_cmd && !flags.yes && !this.io.canPrompt) {
      throw new SvcError(
        'usage',
        'confirmation_required',
        'without --deploy-cmd a person confirms the deploy, and there is no terminal',
        'pass --deploy-cmd, or --yes when --new-key-file is itself the deploy (the application reads that file)',
      );
    }
    this.markLive(record.old_key.environment, `rotates the production key ${record.old_key.id}`);

    await this.execute(record, flags, session.lockLost, {
      admin,
      clientWith: async (secret) => {
        this.secrets.push(secret);
        return await this.openClient(connectionFlags, connection, secret);
      },
      oldKeySecret: session.oldKeySecret,
      givenSecret: session.givenSecret,
      secrets: this.secrets,
      drainEvidence: evidence,
      personCanConfirm,
    });
    this.sayRotated(record);
    return undefined;
  }

  /** Whether the rotation is over already: a completed one is shown as such; an aborted one cannot go on. */
  private alreadyOver(record: RotationRecord): boolean {
    if (record.status === 'completed') {
      const newKey = record.steps.create!.new_key;
      this.note(`Rotation ${record.id} is complete: ${record.old_key.id} was revoked and replaced by ${newKey.id ?? newKey.prefix_hint}.`);
      this.view.show({ event: 'completed', rotation: record.id, old_key: record.old_key.id, new_key: newKey.id, new_key_file: record.new_key_file });
      return true;
    }
    if (record.status === 'aborted') {
      throw new SvcError(
        'refused',
        'rotation_aborted',
        `rotation ${record.id} was aborted at ${record.aborted?.at}`,
        `start another with \`svc keys rotate ${record.old_key.id}\``,
      );
    }
    return false;
  }

  /** What the rotation did, once it is complete: the new key, where its secret is, a revocation svc could not confirm. */
  private sayRotated(record: RotationRecord): void {
    const newKey = record.steps.create!.new_key;
    this.log(
      `Rotated ${record.old_key.id} → ${newKey.id ? `${newKey.id} (${newKey.prefix_hint})` : newKey.prefix_hint}${record.new_key_file ? `; the new secret is in ${record.new_key_file}` : ''}`,
    );
    if (record.steps.confirm?.by === 'not_confirmed')
      this.warning(`the revocation of ${record.old_key.id} was not confirmed: svc held no secret of it (--old-key-file)`);
  }

  /** The old key's secret: --old-key-file, else the profile's API key. */
  private async oldKeySecret(flags: RotateFlags, connection: Connection): Promise<string | undefined> {
    const file = flags['old-key-file'];
    if (file === undefined) return connection.apiKey?.value;
    const secret = (await readSecretFile(resolve(file)))?.trim();
    if (!secret)
      throw new SvcError('usage', 'old_key_file_empty', `--old-key-file ${file} does not exist or is empty`, "give the file that holds the old key's secret");
    this.secrets.push(secret);
    return secret;
  }

  /** A key made in the dashboard, given on stdin (--new-key-file -). */
  private async newKeyFromStdin(): Promise<string> {
    if (this.io.stdin.isTTY) {
      throw new SvcError(
        'usage',
        'new_key_on_terminal',
        '--new-key-file - reads the new key from stdin, and stdin is a terminal',
        'pipe it in: svc keys rotate … --new-key-file - < FILE',
      );
    }
    const secret = (await readStdin(this.io)).trim();
    if (!secret) throw new SvcError('usage', 'new_key_stdin_empty', '--new-key-file - found nothing on stdin', 'pipe the key made in the dashboard into svc');
    this.secrets.push(secret);
    return secret;
  }

  /**
   * The rotation of this key: the one under way or complete, if any (so that a rerun is safe), the one
   * that made a key the service shows (taken up), or a new one.
   */
  private async rotationOf(
    keyId: string,
    flags: RotateFlags,
    session: { admin: ApiClient; connection: Connection; oldKeySecret: string | undefined; givenSecret: string | undefined },
  ): Promise<RotationRecord> {
    const { connection } = session;
    const newKeyFile = flags['new-key-file'] === undefined ? null : flags['new-key-file'] === '-' ? '-' : resolve(flags['new-key-file']);
    const { record, earlier, takenUp } = await findOrPlanRotation(keyId, {
      admin: session.admin,
      adminKeySecret: connection.adminKey!.value,
      baseUrl: connection.baseUrl.href,
      journal: this.journal,
      newKeyFile,
      givenSecret: session.givenSecret,
      newKeyId: flags['new-key-id'] ?? null,
      oldKeySecret: session.oldKeySecret,
      deployCmd: flags['deploy-cmd'] ?? null,
      quietPeriodMs: flags['quiet-period'] ?? DEFAULT_QUIET_PERIOD_MS,
      drainCheckCmd: flags['drain-check-cmd'] ?? null,
      drainWaitMs: flags['drain-wait'] ?? null,
    });
    if (earlier && record.status === 'in_progress') {
      this.note(`Continuing rotation ${record.id} of ${record.old_key.id}, started ${this.timeView(flags.utc, this.io.stderr).full(record.started_at)}.`);
    }
    if (takenUp) {
      this.view.show({
        event: 'notice',
        rotation: record.id,
        message: `${flags['dry-run'] ? 'would take up' : 'took up'} ${keyLabel(takenUp)}, which rotation ${record.id} of ${record.old_key.id} made and no journal in ${this.journal.where} records (another runner, or a state directory since lost), its secret ${record.new_key_file ? `in ${record.new_key_file}` : 'given on stdin'}; its deploy may have run, and is run again`,
      });
    }
    // Checked before a journal names the file: a rotation keeps its key file to the end.
    if (!earlier && !takenUp && record.new_key_source === 'api' && record.new_key_file && !flags['dry-run'])
      await assertSecretFileWritable(record.new_key_file, '--new-key-file');
    return record;
  }

  /** Runs the rotation under its lock; Ctrl-C (or SIGTERM) stops it at the next safe point, a second one at once. */
  private async execute(
    record: RotationRecord,
    flags: RotateFlags,
    lockLost: AbortSignal,
    clients: Pick<RotationContext, 'admin' | 'clientWith' | 'oldKeySecret' | 'givenSecret' | 'secrets' | 'drainEvidence' | 'personCanConfirm'>,
  ): Promise<void> {
    const interrupted = this.interruptSignal(() => {
      this.view.pause();
      this.note('Stopping at a safe point (again to quit at once)…');
    });
    const signal = AbortSignal.any([interrupted, lockLost]);
    const ask = async (question: RotationQuestion): Promise<boolean> => {
      // A person's look at the dashboard is evidence only when a person answers.
      if (flags.yes && question.kind !== 'drained' && question.kind !== 'unverified_key') return true;
      if (!this.io.canPrompt) {
        // Without a terminal, --force is the operator's decision already.
        if (question.kind === 'force_revoke') return true;
        throw new SvcError(
          'usage',
          'confirmation_required',
          `${question.message.split('. ')[0]}: --yes is required when not running interactively`,
          'add --yes to confirm from a script',
        );
      }
      this.view.pause();
      try {
        return await this.prompter.confirm(question.message, false);
      } catch (error) {
        if ((error as Error).name === 'ExitPromptError') this.interrupt();
        throw error;
      }
    };

    try {
      await this.journal.save(record);
      await runRotation(record, {
        ...clients,
        journal: this.journal,
        ask,
        emit: (event) => this.view.show(event),
        deployOutput: this.io.stderr.stream,
        env: this.io.env,
        signal,
        clock: this.clock,
        pollIntervalMs: flags['poll-interval'] ?? DEFAULT_POLL_INTERVAL_MS,
        timeoutMs: flags.timeout ?? DEFAULT_TIMEOUT_MS,
        force: flags.force,
        allowUnverifiedWorkspace: flags['allow-unverified-workspace'],
        allowScopeChange: flags['allow-scope-change'],
        resume: resumeCommand(record, flags),
      });
    } finally {
      this.view.stop();
    }
  }

  private showPlan(record: RotationRecord, evidence: DrainEvidence | undefined): JsonResult {
    const steps = describeSteps(record, evidence);
    const saved = record.steps.create !== undefined || record.attempts.create !== undefined;
    const plan: JsonResult = {
      dry_run: true,
      rotation: saved ? record.id : null,
      old_key: record.old_key,
      new_key_file: record.new_key_file,
      deploy_cmd: record.deploy_cmd,
      quiet_period_ms: record.quiet_period_ms,
      steps,
    };
    this.log(terminalText(`${saved ? `Rotation ${record.id} would continue` : `Rotating ${keyLabel(record.old_key)} would`}:`));
    this.log(steps.map((step) => `  ${step.number}. ${step.step.padEnd(7)} ${terminalText(step.action)}`).join('\n'));
    this.note('Dry run: nothing was changed.');
    return plan;
  }

  private async abort(record: RotationRecord, admin: ApiClient, baseUrl: string) {
    if (record.status === 'aborted') {
      this.note(`Rotation ${record.id} was already aborted at ${record.aborted?.at}.`);
      return undefined;
    }
    assertSameBaseUrl(record, baseUrl);
    const outcome = await abortRotation(record, this.journal, admin, (event) => this.view.show(event));
    this.view.show({ event: 'aborted', rotation: record.id, new_key_revoked: outcome.newKeyRevoked, new_key_left: outcome.newKeyLeft ?? null });
    const left = outcome.newKeyLeft
      ? `; the new key ${outcome.newKeyLeft} may be deployed, so it stays active: \`svc keys revoke ${outcome.newKeyLeft}\` once nothing uses it`
      : '';
    this.log(`Aborted rotation ${record.id}: ${record.old_key.id} stays active${left}`);
    return undefined;
  }
}
